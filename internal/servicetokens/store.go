package servicetokens

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type tokStore struct{ db *store.DB }

const tokCols = `id, user_id, name, scope, prefix, expires_at, revoked_at, last_used_at, created_at`

func scanToken(sc interface{ Scan(...any) error }) (Token, error) {
	var t Token
	var exp, rev, used sql.NullTime
	if err := sc.Scan(&t.ID, &t.AccountID, &t.Name, &t.Scope, &t.Prefix, &exp, &rev, &used, &t.CreatedAt); err != nil {
		return t, err
	}
	t.ExpiresAt, t.RevokedAt, t.LastUsedAt = utcPtr(exp), utcPtr(rev), utcPtr(used)
	t.CreatedAt = t.CreatedAt.UTC()
	return t, nil
}

func utcPtr(n sql.NullTime) *time.Time {
	if !n.Valid {
		return nil
	}
	t := n.Time.UTC()
	return &t
}

func (s *tokStore) insertAccount(ctx context.Context, userID string, by *string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO service_accounts (user_id, created_by, created_at) VALUES (?, ?, ?)`, userID, by, at)
	if err != nil {
		return fmt.Errorf("insert service account: %w", err)
	}
	return nil
}

func (s *tokStore) accounts(ctx context.Context) ([]string, map[string]time.Time, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT user_id, created_at FROM service_accounts ORDER BY created_at, user_id`)
	if err != nil {
		return nil, nil, fmt.Errorf("list service accounts: %w", err)
	}
	defer rows.Close()
	var ids []string
	at := map[string]time.Time{}
	for rows.Next() {
		var id string
		var t time.Time
		if err := rows.Scan(&id, &t); err != nil {
			return nil, nil, err
		}
		ids = append(ids, id)
		at[id] = t.UTC()
	}
	return ids, at, rows.Err()
}

func (s *tokStore) isAccount(ctx context.Context, userID string) (bool, error) {
	var n int
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM service_accounts WHERE user_id = ?`, userID).Scan(&n)
	return n > 0, err
}

func (s *tokStore) insertToken(ctx context.Context, t Token, hash string, version int, by *string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO service_tokens (id, user_id, name, scope, token_hash, prefix, token_version, expires_at, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, t.AccountID, t.Name, t.Scope, hash, t.Prefix, version, t.ExpiresAt, by, t.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert service token: %w", err)
	}
	return nil
}

func (s *tokStore) tokens(ctx context.Context, userID string) ([]Token, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+tokCols+` FROM service_tokens WHERE user_id = ? ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list service tokens: %w", err)
	}
	defer rows.Close()
	out := []Token{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("scan service token: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// byHash returns the token and the account's token generation it was issued in.
func (s *tokStore) byHash(ctx context.Context, hash string) (Token, int, error) {
	var version int
	row := s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+tokCols+`, token_version FROM service_tokens WHERE token_hash = ?`, hash)
	t, err := scanToken(scanFunc(func(dest ...any) error { return row.Scan(append(dest, &version)...) }))
	return t, version, err
}

type scanFunc func(...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

func (s *tokStore) revoke(ctx context.Context, userID, id string, at time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE service_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ?`, at, id, userID)
	if err != nil {
		return false, fmt.Errorf("revoke service token: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s *tokStore) touch(ctx context.Context, id string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE service_tokens SET last_used_at = ? WHERE id = ?`, at, id)
	return err
}
