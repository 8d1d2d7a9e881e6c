package directory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// pageSize is the RFC 2696 page size of the sync searches.
const pageSize = 500

// maxErrors bounds the error texts kept in a sync result.
const maxErrors = 20

// SyncOptions are the options of one run.
type SyncOptions struct {
	// DeactivateMissing overrides cronDeactivateMissing when not nil.
	DeactivateMissing *bool `json:"deactivateMissing,omitempty"`
}

// UserCounts are the user figures of a sync.
type UserCounts struct {
	Seen        int `json:"seen"`
	Created     int `json:"created"`
	Updated     int `json:"updated"`
	Reactivated int `json:"reactivated"`
	Unchanged   int `json:"unchanged"`
	Deactivated int `json:"deactivated"`
	Managers    int `json:"managersChanged"`
}

// GroupCounts are the group figures of a sync.
type GroupCounts struct {
	Seen             int `json:"seen"`
	Created          int `json:"created"`
	Updated          int `json:"updated"`
	Unchanged        int `json:"unchanged"`
	Removed          int `json:"removed"`
	MembershipsTouch int `json:"membershipChanged" doc:"groups whose members changed"`
}

// PhotoCounts are the photo figures of a sync.
type PhotoCounts struct {
	Written int `json:"written"`
	Removed int `json:"removed"`
}

// SyncResult is the result of job adSync.run.
type SyncResult struct {
	Users             UserCounts  `json:"users"`
	Groups            GroupCounts `json:"groups"`
	Photos            PhotoCounts `json:"photos"`
	Errors            int         `json:"errors"`
	ErrorMessages     []string    `json:"errorMessages"`
	DeactivateMissing bool        `json:"deactivateMissing"`
	Truncated         bool        `json:"truncated" doc:"syncLimit cut the user pass short: nobody was deactivated"`
	GroupsTruncated   bool        `json:"groupsTruncated"`
	DurationMs        int64       `json:"durationMs"`
	// stopped is set when an entry failed because the database was lost or
	// the run was cancelled: not the entry's fault, so the run must fail as a
	// whole (and deactivate nobody) rather than report a partial pass.
	stopped error
}

func (r *SyncResult) fail(what string, err error) {
	if r.stopped == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || store.IsUnavailable(err)) {
		r.stopped = err
	}
	r.Errors++
	if len(r.ErrorMessages) < maxErrors {
		r.ErrorMessages = append(r.ErrorMessages, what+": "+detail(err))
	}
}

// Run synchronises users, photos, managers and (when syncGroups) groups.
// Users are matched by external id, so a user renamed in the directory keeps
// its local id; nothing is written for an unchanged entry. Users missing from
// the selection are deactivated only when asked (opts, else
// cronDeactivateMissing) and only after a complete pass. Portal groups are
// never touched. A directory that cannot be reached fails the run before
// anything changes; one lost in the middle fails it without deactivating.
func (s *Service) Run(ctx context.Context, opts SyncOptions) (*SyncResult, error) {
	if !s.syncing.TryLock() {
		return nil, fault.Conflict("a directory sync is already running")
	}
	defer s.syncing.Unlock()
	release, err := s.lease(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	start := s.now()
	c, err := s.config(ctx)
	if err != nil {
		return nil, err
	}
	if !c.Configured() {
		return nil, fault.Conflict("the directory connection is not configured")
	}
	res := &SyncResult{ErrorMessages: []string{}, DeactivateMissing: c.CronDeactivateMissing}
	if opts.DeactivateMissing != nil {
		res.DeactivateMissing = *opts.DeactivateMissing
	}
	cn, err := s.dial(ctx, c, 2*time.Minute)
	if err != nil {
		return nil, err
	}
	defer cn.close()
	seen := map[string]bool{}
	var batch []*ldap.Entry
	err = s.pagedSearch(ctx, cn, c, c.syncFilter(), c.userAttributes(true), c.syncLimit(), &res.Truncated, func(e *ldap.Entry) {
		if isComputer(e) {
			return
		}
		if batch = append(batch, e); len(batch) == batchSize {
			s.syncUsers(ctx, c, batch, res, seen)
			batch = batch[:0]
		}
	})
	if err != nil {
		return nil, fmt.Errorf("directory sync: user pass: %w", answerError(ctx, c, err))
	}
	s.syncUsers(ctx, c, batch, res, seen)
	if res.stopped != nil {
		return nil, fmt.Errorf("directory sync stopped, nobody deactivated: %w", res.stopped)
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		var err error
		res.Users.Managers, err = s.users.ResolveDirectoryManagers(ctx)
		if err != nil || !res.DeactivateMissing || res.Truncated {
			return err
		}
		res.Users.Deactivated, err = s.users.DeactivateDirectoryUsersExcept(ctx, seen)
		return err
	})
	if err != nil {
		return nil, err
	}
	if c.SyncGroups {
		if err := s.syncGroups(ctx, cn, c, res); err != nil {
			return nil, err
		}
	}
	res.DurationMs = s.now().Sub(start).Milliseconds()
	slog.InfoContext(ctx, "directory sync finished", "users", res.Users, "groups", res.Groups, "photos", res.Photos, "errors", res.Errors, "ms", res.DurationMs)
	return res, nil
}

// pagedSearch runs a paged subtree search (RFC 2696) under baseDn and calls
// fn for every entry, at most limit entries (truncated is set when more match).
func (s *Service) pagedSearch(ctx context.Context, cn *conn, c Config, filter string, attrs []string, limit int, truncated *bool, fn func(*ldap.Entry)) error {
	paging := ldap.NewControlPaging(pageSize)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		req := ldap.NewSearchRequest(c.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 0, 0, false, filter, attrs, []ldap.Control{paging})
		res, err := cn.Search(req)
		if err != nil {
			return err
		}
		for _, e := range res.Entries {
			if n >= limit {
				*truncated = true
				return nil
			}
			n++
			fn(e)
		}
		ctrl, _ := ldap.FindControl(res.Controls, ldap.ControlTypePaging).(*ldap.ControlPaging)
		if ctrl == nil || len(ctrl.Cookie) == 0 {
			return nil
		}
		paging.SetCookie(ctrl.Cookie)
	}
}

// batchSize is how many entries share one transaction.
const batchSize = 100

// syncUsers applies a batch of entries in one transaction. When anything in
// it fails (on PostgreSQL a failed statement aborts the transaction) the
// batch is rolled back and applied again entry by entry, so one bad entry
// costs its own error only.
func (s *Service) syncUsers(ctx context.Context, c Config, entries []*ldap.Entry, res *SyncResult, seen map[string]bool) {
	if len(entries) == 0 {
		return
	}
	part := &SyncResult{}
	ids := make([]string, 0, len(entries))
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		for _, e := range entries {
			id := s.syncUser(ctx, c, e, part)
			if part.Errors > 0 {
				return errBatch
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		part, ids = &SyncResult{}, ids[:0]
		for _, e := range entries {
			ids = append(ids, s.syncUser(ctx, c, e, part))
		}
	}
	for _, id := range ids {
		if id != "" {
			seen[id] = true
		}
	}
	res.add(part)
}

var errBatch = errors.New("an entry of the batch failed")

// add adds the user and photo counts of part.
func (r *SyncResult) add(part *SyncResult) {
	u, p := &r.Users, part.Users
	u.Seen, u.Created, u.Updated, u.Reactivated, u.Unchanged = u.Seen+p.Seen, u.Created+p.Created, u.Updated+p.Updated, u.Reactivated+p.Reactivated, u.Unchanged+p.Unchanged
	r.Photos.Written += part.Photos.Written
	r.Photos.Removed += part.Photos.Removed
	r.Errors += part.Errors
	if r.stopped == nil {
		r.stopped = part.stopped
	}
	for _, m := range part.ErrorMessages {
		if len(r.ErrorMessages) < maxErrors {
			r.ErrorMessages = append(r.ErrorMessages, m)
		}
	}
}

// syncUser applies one entry and its photo; it returns the user id ("" when
// the entry could not be used, counted as an error).
func (s *Service) syncUser(ctx context.Context, c Config, e *ldap.Entry, res *SyncResult) string {
	res.Users.Seen++
	p := c.toPerson(e)
	if p.Login == "" {
		res.fail(e.DN, fault.Validation("login", "the entry has no %s", c.loginAttr()))
		return ""
	}
	u, outcome, err := s.users.ApplyDirectoryEntry(ctx, p.DirectoryEntry)
	if err != nil {
		res.fail(p.Login, err)
		if !isRule(err) {
			slog.ErrorContext(ctx, "directory sync: user", "login", p.Login, "err", err)
		}
		return ""
	}
	switch outcome {
	case users.DirectoryCreated:
		res.Users.Created++
	case users.DirectoryUpdated:
		res.Users.Updated++
	case users.DirectoryReactivated:
		res.Users.Reactivated++
	default:
		res.Users.Unchanged++
	}
	if p.hasPhoto {
		if err := s.syncPhoto(ctx, u, p.photo, res); err != nil {
			res.fail(p.Login+" photo", err)
			slog.ErrorContext(ctx, "directory sync: photo", "login", p.Login, "err", err)
		}
	}
	return u.ID
}

func isRule(err error) bool {
	return fault.Is(err, fault.CodeValidation) || fault.Is(err, fault.CodeConflict)
}

// maxPhoto bounds a stored photo (AD thumbnailPhoto is at most 100 KB).
const maxPhoto = 1 << 20

// syncPhoto stores the photo under avatars/{userId} when its hash changed and
// removes it when the directory has none; an unchanged photo is not rewritten.
func (s *Service) syncPhoto(ctx context.Context, u *users.User, photo []byte, res *SyncResult) error {
	key := "avatars/" + u.ID
	if len(photo) > maxPhoto {
		return fmt.Errorf("the photo has %d bytes, more than %d: kept as it was", len(photo), maxPhoto)
	}
	if len(photo) == 0 {
		if u.AvatarHash == "" {
			return nil
		}
		if err := s.blobs.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete avatar: %w", err)
		}
		res.Photos.Removed++
		return s.users.SetDirectoryAvatar(ctx, u.ID, "", "")
	}
	sum := sha256.Sum256(photo)
	hash := hex.EncodeToString(sum[:])
	if hash == u.AvatarHash {
		return nil
	}
	ct := http.DetectContentType(photo)
	if !strings.HasPrefix(ct, "image/") {
		return errors.New("the photo is not an image")
	}
	if _, err := s.blobs.Put(ctx, key, bytes.NewReader(photo)); err != nil {
		return fmt.Errorf("store avatar: %w", err)
	}
	res.Photos.Written++
	return s.users.SetDirectoryAvatar(ctx, u.ID, hash, ct)
}
