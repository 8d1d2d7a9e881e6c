package idempotency

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// record is one stored key.
type record struct {
	Request     string
	BodyHash    string
	Done        bool
	Saved       bool
	LockedUntil time.Time
	Status      int
	ContentType string
	Location    string
	Body        string
	CreatedAt   time.Time
}

type keyStore struct{ db *store.DB }

// reserve inserts a running row for (user, key); it reports false with the
// row found when the key is taken.
func (s *keyStore) reserve(ctx context.Context, user, key, request string, now, until time.Time) (bool, *record, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO idempotency_keys (user_id, idem_key, request, state, saved, locked_until, created_at)
		VALUES (?, ?, ?, 'running', FALSE, ?, ?) ON CONFLICT (user_id, idem_key) DO NOTHING`, user, key, request, until, now)
	if err != nil {
		return false, nil, fmt.Errorf("reserve idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, nil, nil
	}
	rec, err := s.get(ctx, user, key)
	if store.IsNotFound(err) {
		return false, nil, nil // removed meanwhile: the caller tries again
	}
	return false, rec, err
}

func (s *keyStore) get(ctx context.Context, user, key string) (*record, error) {
	var r record
	var hash, ctype, loc, body sql.NullString
	var status sql.NullInt64
	var state string
	err := s.db.W(ctx).QueryRowContext(ctx, `SELECT request, body_hash, state, saved, locked_until, status, content_type, location, body, created_at
		FROM idempotency_keys WHERE user_id = ? AND idem_key = ?`, user, key).
		Scan(&r.Request, &hash, &state, &r.Saved, &r.LockedUntil, &status, &ctype, &loc, &body, &r.CreatedAt)
	if err != nil {
		return nil, err
	}
	r.BodyHash, r.Done, r.Status = hash.String, state == "done", int(status.Int64)
	r.ContentType, r.Location, r.Body = ctype.String, loc.String, body.String
	return &r, nil
}

// takeOver gives a running key whose holder stopped renewing it (the
// instance died) to this request, if nothing of the first one was saved.
func (s *keyStore) takeOver(ctx context.Context, user, key, request string, now, until time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET request = ?, locked_until = ?
		WHERE user_id = ? AND idem_key = ? AND state = 'running' AND saved = FALSE AND locked_until < ?`, request, until, user, key, now)
	if err != nil {
		return false, fmt.Errorf("take over idempotency key: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s *keyStore) renew(ctx context.Context, user, key string, until time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET locked_until = ? WHERE user_id = ? AND idem_key = ? AND state = 'running'`, until, user, key)
	if err != nil {
		return fmt.Errorf("renew idempotency key: %w", err)
	}
	return nil
}

// markSaved runs inside the request's own transactions (store.WithCommitHook).
func (s *keyStore) markSaved(ctx context.Context, user, key string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET saved = TRUE WHERE user_id = ? AND idem_key = ? AND saved = FALSE`, user, key)
	if err != nil {
		return fmt.Errorf("mark idempotency key saved: %w", err)
	}
	return nil
}

func (s *keyStore) complete(ctx context.Context, user, key, hash string, a *answer) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', body_hash = ?, status = ?, content_type = ?, location = ?, body = ?
		WHERE user_id = ? AND idem_key = ?`, hash, a.status, a.contentType, a.location, a.body.String(), user, key)
	if err != nil {
		return fmt.Errorf("store idempotent answer: %w", err)
	}
	return nil
}

// release forgets a running key whose request gave no answer worth keeping.
func (s *keyStore) release(ctx context.Context, user, key string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ? AND state = 'running'`, user, key)
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

func (s *keyStore) purge(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, before)
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return res.RowsAffected()
}

func (s *keyStore) forget(ctx context.Context, user, key string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM idempotency_keys WHERE user_id = ? AND idem_key = ?`, user, key)
	if err != nil {
		return fmt.Errorf("forget expired idempotency key: %w", err)
	}
	return nil
}
