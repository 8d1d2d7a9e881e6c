package dav

import (
	"context"
	"errors"
	"os"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/net/webdav"

	"coreportal/internal/fault"
	"coreportal/internal/filelock"
)

// lockSys is the webdav.LockSystem of one request over the shared lock
// store (internal/filelock): locks live in the database, so every instance
// sees them, and the API refuses writes to a locked file (423) the same way.
// A lock is held by the user who took it: another user's request never
// confirms it, even with its token. Locks are exclusive write locks.
type lockSys struct {
	fs     *FS
	ctx    context.Context
	method string
	store  *filelock.Store
}

const probePrefix = "probe:"

// coverage is what a path's locks are checked against.
type coverage struct {
	target string   // the resource's lock id, "" when it does not exist
	chain  []string // lock ids from the library down to the resource (or its parent)
}

func (l *lockSys) coverage(name string) (coverage, error) {
	if r, err := l.fs.resolve(l.ctx, name); err == nil {
		return coverage{target: r.id(), chain: r.chain}, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return coverage{}, err
	}
	parent, err := l.fs.resolve(l.ctx, path.Dir(path.Clean("/"+name)))
	if err != nil {
		return coverage{}, nil // no parent: nothing can be locked there
	}
	return coverage{chain: parent.chain}, nil
}

// covering returns the live locks that cover name: its own, and those of
// its ancestors taken with Depth: infinity.
func (l *lockSys) covering(name string) ([]*filelock.Lock, error) {
	c, err := l.coverage(name)
	if err != nil || len(c.chain) == 0 {
		return nil, err
	}
	held, err := l.store.Of(l.ctx, c.chain)
	if err != nil {
		return nil, err
	}
	var out []*filelock.Lock
	for id, lk := range held {
		if id == c.target || lk.Deep {
			out = append(out, lk)
		}
	}
	return out, nil
}

// Confirm checks that the If header's tokens name locks of this user that
// cover name0 and name1 (as webdav's memory lock system does).
func (l *lockSys) Confirm(_ time.Time, name0, name1 string, conditions ...webdav.Condition) (func(), error) {
	if !l.etagsHold(name0, conditions) {
		return nil, webdav.ErrConfirmationFailed
	}
	for _, name := range []string{name0, name1} {
		if name == "" {
			continue
		}
		locks, err := l.covering(name)
		if err != nil {
			return nil, err
		}
		if !l.matches(locks, conditions) {
			return nil, webdav.ErrConfirmationFailed
		}
	}
	return func() {}, nil
}

func (l *lockSys) matches(locks []*filelock.Lock, conditions []webdav.Condition) bool {
	for _, c := range conditions {
		if c.Not || c.Token == "" {
			continue
		}
		for _, lk := range locks {
			if lk.Token == c.Token && lk.Holder == l.fs.p.UserID {
				return true
			}
		}
	}
	return false
}

// Create takes a lock (LOCK) or, for the other methods, only checks that
// no lock covers the resource: webdav's handler "creates" a temporary lock
// to refuse writes without an If header to a locked resource.
func (l *lockSys) Create(_ time.Time, d webdav.LockDetails) (string, error) {
	if hidden(d.Root) {
		return probePrefix + uuid.NewString(), nil
	}
	locks, err := l.covering(d.Root)
	if err != nil {
		return "", err
	}
	if len(locks) > 0 {
		return "", webdav.ErrLocked
	}
	if l.method != "LOCK" {
		return probePrefix + uuid.NewString(), nil
	}
	r, err := l.fs.resolve(l.ctx, d.Root)
	if errors.Is(err, os.ErrNotExist) {
		// a lock of an unmapped URL makes an empty file (RFC 4918, 7.3)
		w, err := l.fs.create(l.ctx, d.Root)
		if err != nil {
			return "", err
		}
		if err := w.Close(); err != nil {
			return "", err
		}
		r, err = l.fs.resolve(l.ctx, d.Root)
		if err != nil {
			return "", err
		}
		l.fs.lockCreated = true
	} else if err != nil {
		return "", err
	}
	if r.kind != kindFile && r.kind != kindLibrary {
		return "", l.fs.fail(fault.Forbidden("only libraries, folders and files can be locked"))
	}
	if !d.ZeroDepth && r.isDir() {
		under, err := l.store.Under(l.ctx, d.Root)
		if err != nil {
			return "", err
		}
		if len(under) > 0 {
			return "", webdav.ErrLocked
		}
	}
	lk, err := l.store.Lock(l.ctx, filelock.Request{FileID: r.id(), Holder: l.fs.p.UserID, Token: "opaquelocktoken:" + uuid.NewString(),
		Kind: filelock.WebDAV, TTL: ttl(d.Duration), Deep: !d.ZeroDepth, Path: path.Clean("/" + d.Root), Owner: d.OwnerXML})
	if fault.Is(err, fault.CodeFileLocked) {
		return "", webdav.ErrLocked
	}
	if err != nil {
		return "", err
	}
	return lk.Token, nil
}

// ttl is a lock's lifetime: the requested one up to a day; Infinite is an hour.
func ttl(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Hour
	}
	return min(d, filelock.MaxTTL)
}

func (l *lockSys) own(token string) (*filelock.Lock, error) {
	lk, err := l.store.ByToken(l.ctx, token)
	if err != nil {
		return nil, err
	}
	if lk == nil {
		return nil, webdav.ErrNoSuchLock
	}
	if lk.Holder != l.fs.p.UserID {
		return nil, webdav.ErrForbidden
	}
	return lk, nil
}

// Refresh extends a lock of this user.
func (l *lockSys) Refresh(_ time.Time, token string, d time.Duration) (webdav.LockDetails, error) {
	lk, err := l.own(token)
	if err != nil {
		return webdav.LockDetails{}, err
	}
	if _, err := l.store.Refresh(l.ctx, lk.FileID, token, ttl(d)); err != nil {
		if errors.Is(err, filelock.ErrNoLock) {
			return webdav.LockDetails{}, webdav.ErrNoSuchLock
		}
		return webdav.LockDetails{}, err
	}
	return webdav.LockDetails{Root: lk.Path, Duration: d, OwnerXML: lk.Owner, ZeroDepth: !lk.Deep}, nil
}

// Unlock releases a lock of this user.
func (l *lockSys) Unlock(_ time.Time, token string) error {
	if len(token) > len(probePrefix) && token[:len(probePrefix)] == probePrefix {
		return nil
	}
	lk, err := l.own(token)
	if err != nil {
		return err
	}
	if err := l.store.Unlock(l.ctx, lk.FileID, token); errors.Is(err, filelock.ErrNoLock) {
		return webdav.ErrNoSuchLock
	} else if err != nil {
		return err
	}
	return nil
}

// etagsHold checks the If list's entity-tag conditions against the current
// ETag of name (the resource the list is tagged with, or the request's).
func (l *lockSys) etagsHold(name string, conditions []webdav.Condition) bool {
	cur := ""
	if name != "" {
		if r, err := l.fs.resolve(l.ctx, name); err == nil {
			cur, _ = info{r}.ETag(l.ctx)
		}
	}
	for _, c := range conditions {
		if c.ETag == "" {
			continue
		}
		same := cur != "" && strings.Trim(strings.TrimPrefix(c.ETag, "W/"), `"`) == strings.Trim(cur, `"`)
		if same == c.Not {
			return false
		}
	}
	return true
}
