package principals

import (
	"context"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestNames: names come from the tables once and then from the cache until
// Forget or the TTL; missing subjects are remembered as missing; reads in a
// transaction are never kept. Both databases.
func TestNames(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const u, g, gone = "0a000000-0000-4000-8000-000000000001", "0b000000-0000-4000-8000-000000000001", "0c000000-0000-4000-8000-000000000001"
		now := time.Now().UTC()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W(ctx).ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec("INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", u, "ann", "ann", "Ann", now, now)
		exec("INSERT INTO groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", g, "Team", now, now)
		n := For(db)
		if For(db) != n {
			t.Fatal("one cache per database")
		}
		clock := now
		n.now = func() time.Time { return clock }
		keys := []Key{{User, u}, {Group, g}, {User, gone}, {Group, u}}
		look := func(stage string, want map[Key]string) {
			t.Helper()
			got, err := n.Lookup(ctx, keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Errorf("%s: %v, want %v", stage, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %v = %q, want %q", stage, k, got[k], v)
				}
			}
		}
		look("first", map[Key]string{{User, u}: "Ann", {Group, g}: "Team"})
		exec("UPDATE users SET display_name = ? WHERE id = ?", "Ann B", u)
		look("cached", map[Key]string{{User, u}: "Ann", {Group, g}: "Team"})
		Changed(ctx, db, u)
		look("forgotten", map[Key]string{{User, u}: "Ann B", {Group, g}: "Team"})
		exec("UPDATE groups SET name = ? WHERE id = ?", "Team B", g)
		clock = clock.Add(TTL)
		look("expired", map[Key]string{{User, u}: "Ann B", {Group, g}: "Team B"})
		names, err := n.Users(ctx, []string{u, gone, ""})
		if err != nil || len(names) != 1 || names[u] != "Ann B" {
			t.Errorf("users %v %v", names, err)
		}
		// a transaction's reads are used, never kept
		err = db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET display_name = ? WHERE id = ?", "In tx", u); err != nil {
				return err
			}
			Changed(ctx, db, u)
			m, err := n.Lookup(ctx, []Key{{User, u}})
			if err != nil || m[Key{User, u}] != "In tx" {
				t.Errorf("in tx: %v %v", m, err)
			}
			return context.Canceled // roll back
		})
		if err == nil {
			t.Fatal("rollback expected")
		}
		look("after rollback", map[Key]string{{User, u}: "Ann B", {Group, g}: "Team B"})
	})
}
