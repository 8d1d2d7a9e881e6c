// Package settings keeps small instance-wide values (install id, JWT secret,
// first start) in the settings table.
package settings

import (
	"context"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// Store reads and writes settings rows.
type Store struct{ db *store.DB }

// New returns the settings store.
func New(db *store.DB) *Store { return &Store{db: db} }

// Get returns the value and whether it exists.
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	if store.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read setting %s: %w", key, err)
	}
	return v, true, nil
}

// Set stores a value.
func (s *Store) Set(ctx context.Context, key, value string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, value, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("write setting %s: %w", key, err)
	}
	return nil
}

// Init stores gen() under key unless a value exists, and returns the stored
// value. Instances starting together agree on one value.
func (s *Store) Init(ctx context.Context, key string, gen func() string) (string, error) {
	if v, ok, err := s.Get(ctx, key); err != nil || ok {
		return v, err
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO NOTHING`, key, gen(), time.Now().UTC()); err != nil {
		return "", fmt.Errorf("init setting %s: %w", key, err)
	}
	var v string
	if err := s.db.W(ctx).QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v); err != nil {
		return "", fmt.Errorf("read setting %s: %w", key, err)
	}
	return v, nil
}

// Swap sets key to next if its value is old ("" also matches a missing key)
// and reports whether it did: a compare-and-set that instances can use as a
// lease.
func (s *Store) Swap(ctx context.Context, key, old, next string) (bool, error) {
	now := time.Now().UTC()
	if old == "" {
		res, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`, key, next, now)
		if err != nil {
			return false, fmt.Errorf("swap setting %s: %w", key, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return true, nil
		}
	}
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE settings SET value = ?, updated_at = ? WHERE key = ? AND value = ?`, next, now, key, old)
	if err != nil {
		return false, fmt.Errorf("swap setting %s: %w", key, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
