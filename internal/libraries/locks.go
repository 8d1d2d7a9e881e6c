package libraries

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/filelock"
)

// UseLocks wires the file lock store (WebDAV and WOPI locks): uploads of a
// new version, renames, moves, field edits, version restores and deletes of
// a file locked by another user answer 423 FILE_LOCKED naming the holder.
func (s *Service) UseLocks(ls *filelock.Store) { s.locks = ls }

// Locks is the lock store wired by UseLocks (nil when none).
func (s *Service) Locks() *filelock.Store { return s.locks }

// checkLock refuses a write by p to the file guid locked by another user.
func (s *Service) checkLock(ctx context.Context, p *auth.Principal, guid string) error {
	if s.locks == nil {
		return nil
	}
	return s.locks.CheckWrite(ctx, guid, p.UserID)
}

// checkLocks refuses a write by p to any of files locked by another user
// (a folder's subtree moving to the bin).
func (s *Service) checkLocks(ctx context.Context, p *auth.Principal, files []*File) error {
	if s.locks == nil || len(files) == 0 {
		return nil
	}
	for start := 0; start < len(files); start += 500 {
		end := min(start+500, len(files))
		ids := make([]string, 0, end-start)
		for _, f := range files[start:end] {
			ids = append(ids, f.GUID)
		}
		held, err := s.locks.Of(ctx, ids)
		if err != nil {
			return err
		}
		for _, l := range held {
			if l.Holder != p.UserID {
				return filelock.Locked(l)
			}
		}
	}
	return nil
}
