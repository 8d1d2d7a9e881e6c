package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"coreportal/internal/store"
)

// sessionStore is the SQL of revoked tokens and sign-in throttling. Times are
// Unix milliseconds.
type sessionStore struct{ db *store.DB }

func (s *sessionStore) revoke(ctx context.Context, jti string, expiresAt, at int64) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO revoked_tokens (jti, expires_at, revoked_at) VALUES (?, ?, ?)
		ON CONFLICT (jti) DO NOTHING`, jti, expiresAt, at)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	return nil
}

type revokedRow struct {
	jti                  string
	expiresAt, revokedAt int64
}

// revokedSince returns the unexpired revocations made at or after since.
func (s *sessionStore) revokedSince(ctx context.Context, since, now int64) ([]revokedRow, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT jti, expires_at, revoked_at FROM revoked_tokens WHERE revoked_at >= ? AND expires_at > ?", since, now)
	if err != nil {
		return nil, fmt.Errorf("load revoked tokens: %w", err)
	}
	defer rows.Close()
	var out []revokedRow
	for rows.Next() {
		var r revokedRow
		if err := rows.Scan(&r.jti, &r.expiresAt, &r.revokedAt); err != nil {
			return nil, fmt.Errorf("load revoked tokens: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// sweep deletes revocations of expired tokens and throttle rows that no
// longer hold anything back.
func (s *sessionStore) sweep(ctx context.Context, now, staleBefore int64) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM revoked_tokens WHERE expires_at <= ?", now); err != nil {
		return fmt.Errorf("sweep revoked tokens: %w", err)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM login_throttle WHERE window_start < ? AND next_at <= ?", staleBefore, now); err != nil {
		return fmt.Errorf("sweep sign-in throttle: %w", err)
	}
	return nil
}

// count counts one failure of key, starting a new window when the old one
// began before windowStart, and returns the failures of the window; when the
// key already has limit failures in its window it changes nothing and answers
// false. Check and count are one statement, so parallel attempts cannot all
// slip through.
func (s *sessionStore) count(ctx context.Context, key string, limit int, now, windowStart int64) (int, bool, error) {
	q := s.db.W(ctx)
	if _, err := q.ExecContext(ctx, `INSERT INTO login_throttle (key, failures, window_start, next_at) VALUES (?, 0, ?, 0)
		ON CONFLICT (key) DO NOTHING`, key, now); err != nil {
		return 0, false, fmt.Errorf("sign-in throttle: %w", err)
	}
	var n int
	err := q.QueryRowContext(ctx, `UPDATE login_throttle SET
		failures = CASE WHEN window_start <= ? THEN 1 ELSE failures + 1 END,
		window_start = CASE WHEN window_start <= ? THEN CAST(? AS BIGINT) ELSE window_start END
		WHERE key = ? AND (window_start <= ? OR failures < ?) RETURNING failures`,
		windowStart, windowStart, now, key, windowStart, limit).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("sign-in throttle: %w", err)
	}
	return n, true, nil
}

// reserve takes a slot of key for an attempt in flight when its failures
// and attempts in flight together stay under limit (a window that ended
// starts again). When it cannot, failures tells whether the recorded
// failures alone fill the window (then the caller is refused at once) or
// attempts in flight hold the slots (then a slot frees within a moment).
func (s *sessionStore) reserve(ctx context.Context, key string, limit int, now, windowStart int64) (ok bool, failures int, err error) {
	q := s.db.W(ctx)
	if _, err := q.ExecContext(ctx, `INSERT INTO login_throttle (key, failures, window_start, next_at, pending) VALUES (?, 0, ?, 0, 0)
		ON CONFLICT (key) DO NOTHING`, key, now); err != nil {
		return false, 0, fmt.Errorf("sign-in throttle: %w", err)
	}
	var n int
	err = q.QueryRowContext(ctx, `UPDATE login_throttle SET
		failures = CASE WHEN window_start <= ? THEN 0 ELSE failures END,
		pending = CASE WHEN window_start <= ? THEN 1 ELSE pending + 1 END,
		window_start = CASE WHEN window_start <= ? THEN CAST(? AS BIGINT) ELSE window_start END
		WHERE key = ? AND (window_start <= ? OR failures + pending < ?) RETURNING failures`,
		windowStart, windowStart, windowStart, now, key, windowStart, limit).Scan(&n)
	if err == nil {
		return true, n, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, 0, fmt.Errorf("sign-in throttle: %w", err)
	}
	if err := q.QueryRowContext(ctx, "SELECT failures FROM login_throttle WHERE key = ?", key).Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, 0, fmt.Errorf("sign-in throttle: %w", err)
	}
	return false, n, nil
}

// settle ends an attempt in flight of key: its slot is given back, and
// failed adds a failure (the slot becomes one) or, with reset, the failures
// are forgotten (a correct password).
func (s *sessionStore) settle(ctx context.Context, key string, failed, reset bool) error {
	set := "failures"
	switch {
	case failed:
		set = "failures + 1"
	case reset:
		set = "0"
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE login_throttle SET failures = "+set+
		", pending = CASE WHEN pending > 0 THEN pending - 1 ELSE 0 END WHERE key = ?", key); err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	return nil
}

// remember marks key (a login and an address it signed in from) as known
// until the millisecond until; the sweep keeps it till then (next_at).
func (s *sessionStore) remember(ctx context.Context, key string, now, until int64) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO login_throttle (key, failures, window_start, next_at, pending) VALUES (?, 0, ?, ?, 0)
		ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, next_at = excluded.next_at`, key, now, until); err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	return nil
}

// known reports whether key was remembered and has not expired at now.
func (s *sessionStore) known(ctx context.Context, key string, now int64) (bool, error) {
	var one int
	err := s.db.W(ctx).QueryRowContext(ctx, "SELECT 1 FROM login_throttle WHERE key = ? AND next_at > ?", key, now).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sign-in throttle: %w", err)
	}
	return true, nil
}

// slot reads the per-login counter: failures in the window that started
// after windowStart, and when the next attempt is allowed.
func (s *sessionStore) slot(ctx context.Context, key string, windowStart int64) (failures int, nextAt int64, err error) {
	err = s.db.W(ctx).QueryRowContext(ctx, `SELECT CASE WHEN window_start <= ? THEN 0 ELSE failures END, next_at
		FROM login_throttle WHERE key = ?`, windowStart, key).Scan(&failures, &nextAt)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("sign-in throttle: %w", err)
	}
	return failures, nextAt, nil
}

// claim moves key's next_at from was to next; false when another attempt
// moved it first (that attempt got the slot).
func (s *sessionStore) claim(ctx context.Context, key string, was, next int64) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, "UPDATE login_throttle SET next_at = ? WHERE key = ? AND next_at = ?", next, key, was)
	if err != nil {
		return false, fmt.Errorf("sign-in throttle: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// delay pushes key's next_at to at least next.
func (s *sessionStore) delay(ctx context.Context, key string, next int64) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE login_throttle SET next_at = ? WHERE key = ? AND next_at < ?", next, key, next); err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	return nil
}
