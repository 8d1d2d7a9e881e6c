package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestQueuedWrites: queued writes are seen by the transaction's next
// statement, are committed with it, in order, and vanish on rollback; a
// failing one voids the transaction, which returns its error (named and
// translated) even when the caller went on and met a consequence of it.
func TestQueuedWrites(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now().UTC()
		put := func(ctx context.Context, key, value string) error {
			return db.Queue(ctx, "put "+key, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", key, value, now)
		}
		get := func(ctx context.Context, key string) (string, error) {
			var v string
			err := db.Q(ctx).QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
			return v, err
		}
		boom := errors.New("boom")

		for _, tc := range []struct {
			name    string
			fn      func(ctx context.Context) error
			wantErr string // substring of InTx's error; "" = commits
			want    map[string]string
		}{
			{"seen by the next statement and committed", func(ctx context.Context) error {
				if err := put(ctx, "q1", "a"); err != nil {
					return err
				}
				if v, err := get(ctx, "q1"); err != nil || v != "a" {
					return errors.Join(errors.New("queued write not seen"), err)
				}
				return put(ctx, "q2", "b") // sent at commit
			}, "", map[string]string{"q1": "a", "q2": "b"}},
			{"kept in order", func(ctx context.Context) error {
				if err := put(ctx, "q3", "x"); err != nil {
					return err
				}
				return db.Queue(ctx, "update q3", "UPDATE settings SET value = ? WHERE key = ?", "y", "q3")
			}, "", map[string]string{"q3": "y"}},
			{"rolled back with the transaction", func(ctx context.Context) error {
				if err := put(ctx, "q4", "a"); err != nil {
					return err
				}
				if _, err := get(ctx, "q4"); err != nil {
					return err
				}
				return boom
			}, "boom", map[string]string{"q4": ""}},
			{"a failing write fails the commit", func(ctx context.Context) error {
				if err := put(ctx, "q5", "a"); err != nil {
					return err
				}
				return put(ctx, "q1", "duplicate")
			}, "put q1: unique constraint violated", map[string]string{"q5": "", "q1": "a"}},
			{"a failing write is reported over its consequence", func(ctx context.Context) error {
				if err := put(ctx, "q1", "duplicate"); err != nil {
					return err // SQLite: at once
				}
				if _, err := get(ctx, "q1"); err != nil {
					return err // on PostgreSQL: the transaction is aborted
				}
				return nil
			}, "put q1: unique constraint violated", map[string]string{"q1": "a"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return tc.fn(ctx) })
				if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
					t.Fatalf("InTx: %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(tc.wantErr, "unique") && !store.IsUnique(err) {
					t.Fatalf("not translated: %v", err)
				}
				for k, want := range tc.want {
					v, err := get(ctx, k)
					if want == "" && !store.IsNotFound(err) || want != "" && (err != nil || v != want) {
						t.Fatalf("%s = %q (%v), want %q", k, v, err, want)
					}
				}
			})
		}

		t.Run("outside a transaction it runs at once", func(t *testing.T) {
			if err := put(ctx, "q6", "now"); err != nil {
				t.Fatal(err)
			}
			if v, err := get(ctx, "q6"); err != nil || v != "now" {
				t.Fatalf("q6 = %q, %v", v, err)
			}
		})
	})
}
