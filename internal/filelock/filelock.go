// Package filelock keeps the locks of library files (WebDAV and WOPI) in the
// database, so that every instance sees the same locks. A lock is exclusive:
// a file has at most one live lock. Locks expire; an expired lock is ignored
// and replaced by the next Lock of the file.
//
// Use:
//
//	l, err := locks.Lock(ctx, filelock.Request{FileID: guid, Holder: userID, Token: tok, Kind: filelock.WOPI, TTL: 30 * time.Minute})
//	// err is a *fault.Error FILE_LOCKED (HTTP 423, details.holder) when another token holds the file.
//	l, err = locks.Refresh(ctx, guid, tok, 30*time.Minute) // ErrNoLock / FILE_LOCKED on a wrong token
//	err = locks.Unlock(ctx, guid, tok)                     // ErrNoLock / FILE_LOCKED on a wrong token
//	l, err = locks.Get(ctx, guid)                           // nil, nil when the file is not locked
//	err = locks.CheckWrite(ctx, guid, userID)               // FILE_LOCKED unless unlocked or held by userID
//
// File ids are opaque strings: library files use their guid; WebDAV may lock
// other collections (a library root) by their id.
package filelock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Kinds of lock.
const (
	WebDAV = "webdav"
	WOPI   = "wopi"
)

// MaxTTL bounds the lifetime of one lock (a client refreshes longer locks).
const MaxTTL = 24 * time.Hour

// ErrNoLock is returned by Refresh and Unlock when the file has no live lock.
var ErrNoLock = errors.New("file is not locked")

// Lock is one live lock.
type Lock struct {
	FileID  string    `json:"fileId"`
	Token   string    `json:"token"`
	Holder  string    `json:"holder"` // user id
	Kind    string    `json:"kind"`
	Deep    bool      `json:"deep"`  // WebDAV Depth: infinity on a collection
	Path    string    `json:"path"`  // WebDAV path at lock time ("" for WOPI)
	Owner   string    `json:"owner"` // WebDAV owner XML ("" for WOPI)
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// Request asks for a lock. Token is chosen by the caller (WOPI: the lock
// id the editor sends; WebDAV: an opaquelocktoken URI).
type Request struct {
	FileID string
	Holder string
	Token  string
	Kind   string
	TTL    time.Duration
	Deep   bool
	Path   string
	Owner  string
}

// Store is the lock table.
type Store struct {
	db  *store.DB
	now func() time.Time
}

// New returns the lock store over db.
func New(db *store.DB) *Store { return &Store{db: db, now: time.Now} }

// Locked is the error of a write refused by another holder's lock:
// 423 FILE_LOCKED with details.holder (user id) and details.kind.
func Locked(l *Lock) *fault.Error {
	return fault.New(fault.CodeFileLocked, "the file is locked by another user (%s lock)", l.Kind).
		With("holder", l.Holder).With("kind", l.Kind).With("expires", l.Expires.UTC().Format(time.RFC3339))
}

func ttl(d time.Duration) time.Duration {
	if d <= 0 || d > MaxTTL {
		return MaxTTL
	}
	return d
}

const cols = `file_id, token, holder, kind, deep, path, owner, created_at, expires_at`

func scan(r interface{ Scan(...any) error }) (*Lock, error) {
	var l Lock
	if err := r.Scan(&l.FileID, &l.Token, &l.Holder, &l.Kind, &l.Deep, &l.Path, &l.Owner, &l.Created, &l.Expires); err != nil {
		return nil, err
	}
	l.Created, l.Expires = l.Created.UTC(), l.Expires.UTC()
	return &l, nil
}

// Lock takes the lock of a file. The same token on the same file refreshes
// it; a live lock with another token answers FILE_LOCKED (423).
func (s *Store) Lock(ctx context.Context, r Request) (*Lock, error) {
	if r.FileID == "" || r.Token == "" || r.Holder == "" {
		return nil, fault.Validation("token", "file, holder and token are required")
	}
	if r.Kind != WebDAV && r.Kind != WOPI {
		return nil, fault.Validation("kind", "kind is webdav or wopi")
	}
	now := s.now().UTC()
	l := &Lock{FileID: r.FileID, Token: r.Token, Holder: r.Holder, Kind: r.Kind, Deep: r.Deep, Path: r.Path, Owner: r.Owner, Created: now, Expires: now.Add(ttl(r.TTL))}
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		cur, err := s.get(ctx, r.FileID)
		if err != nil {
			return err
		}
		if cur != nil && cur.Token != r.Token {
			return Locked(cur)
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM file_locks WHERE file_id = ?`, r.FileID); err != nil {
			return fmt.Errorf("drop old lock: %w", err)
		}
		if cur != nil {
			l.Created = cur.Created
		}
		_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO file_locks (`+cols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			l.FileID, l.Token, l.Holder, l.Kind, l.Deep, l.Path, l.Owner, l.Created, l.Expires)
		if store.IsUnique(err) {
			return fault.New(fault.CodeFileLocked, "the file was locked meanwhile")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Refresh extends a live lock held with token.
func (s *Store) Refresh(ctx context.Context, fileID, token string, d time.Duration) (*Lock, error) {
	cur, err := s.Get(ctx, fileID)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, ErrNoLock
	}
	if cur.Token != token {
		return nil, Locked(cur)
	}
	cur.Expires = s.now().UTC().Add(ttl(d))
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE file_locks SET expires_at = ? WHERE file_id = ? AND token = ?`, cur.Expires, fileID, token)
	if err != nil {
		return nil, fmt.Errorf("refresh lock: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, ErrNoLock
	}
	return cur, nil
}

// Unlock releases the lock of a file held with token.
func (s *Store) Unlock(ctx context.Context, fileID, token string) error {
	cur, err := s.Get(ctx, fileID)
	if err != nil {
		return err
	}
	if cur == nil {
		return ErrNoLock
	}
	if cur.Token != token {
		return Locked(cur)
	}
	_, err = s.db.W(ctx).ExecContext(ctx, `DELETE FROM file_locks WHERE file_id = ? AND token = ?`, fileID, token)
	return err
}

// Get returns the live lock of a file, nil when none.
func (s *Store) Get(ctx context.Context, fileID string) (*Lock, error) { return s.get(ctx, fileID) }

func (s *Store) get(ctx context.Context, fileID string) (*Lock, error) {
	l, err := scan(s.db.W(ctx).QueryRowContext(ctx, `SELECT `+cols+` FROM file_locks WHERE file_id = ? AND expires_at > ?`, fileID, s.now().UTC()))
	if errors.Is(err, sql.ErrNoRows) || store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return l, nil
}

// ByToken returns the live lock with token, nil when none.
func (s *Store) ByToken(ctx context.Context, token string) (*Lock, error) {
	l, err := scan(s.db.W(ctx).QueryRowContext(ctx, `SELECT `+cols+` FROM file_locks WHERE token = ? AND expires_at > ?`, token, s.now().UTC()))
	if errors.Is(err, sql.ErrNoRows) || store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return l, nil
}

// Of returns the live locks of the given files (by file id).
func (s *Store) Of(ctx context.Context, fileIDs []string) (map[string]*Lock, error) {
	out := map[string]*Lock{}
	if len(fileIDs) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(fileIDs)+1)
	args = append(args, s.now().UTC())
	for _, id := range fileIDs {
		args = append(args, id)
	}
	rows, err := s.db.W(ctx).QueryContext(ctx, `SELECT `+cols+` FROM file_locks WHERE expires_at > ? AND file_id IN (?`+strings.Repeat(", ?", len(fileIDs)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read locks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		l, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out[l.FileID] = l
	}
	return out, rows.Err()
}

// CheckWrite refuses (FILE_LOCKED, 423) a write to fileID by user when
// another user holds a live lock of it; the holder may write.
func (s *Store) CheckWrite(ctx context.Context, fileID, user string) error {
	l, err := s.Get(ctx, fileID)
	if err != nil || l == nil || l.Holder == user {
		return err
	}
	return Locked(l)
}

// Purge deletes expired locks (housekeeping; reads ignore them anyway).
func (s *Store) Purge(ctx context.Context) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM file_locks WHERE expires_at <= ?`, s.now().UTC())
	return err
}

// Under returns the live WebDAV locks whose path lies below prefix (a
// collection about to be locked with Depth: infinity).
func (s *Store) Under(ctx context.Context, prefix string) ([]*Lock, error) {
	prefix = strings.TrimSuffix(prefix, "/") + "/"
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix)
	rows, err := s.db.W(ctx).QueryContext(ctx, `SELECT `+cols+` FROM file_locks WHERE expires_at > ? AND kind = ? AND path LIKE ? ESCAPE '\'`,
		s.now().UTC(), WebDAV, esc+"%")
	if err != nil {
		return nil, fmt.Errorf("read locks: %w", err)
	}
	defer rows.Close()
	var out []*Lock
	for rows.Next() {
		l, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
