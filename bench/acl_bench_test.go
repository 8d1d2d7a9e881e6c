// Package bench holds performance harnesses; run with
//
//	TEST_DATABASE_URL=postgres://… go test ./bench/ -run '^$' -bench ACL -benchtime 2s
package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// aclWorld: a node chain 10 levels deep with a list and one item at the
// bottom, a user in 100 groups, 1,000 ACL records in the store (a handful on
// the chain for the user's groups, the rest elsewhere).
type aclWorld struct {
	e    *acl.Engine
	user *auth.Principal
	item acl.Ref
}

func setupACL(b *testing.B, db *store.DB) aclWorld {
	b.Helper()
	ctx := context.Background()
	e := acl.New(db, bus.NewMemory())
	now := time.Now().UTC()
	w := aclWorld{e: e}
	err := db.InTx(ctx, func(ctx context.Context, tx *store.Tx) error {
		exec := func(q string, args ...any) {
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				b.Fatal(err)
			}
		}
		newUser := func(login string) string {
			id := uuid.NewString()
			exec("INSERT INTO users (id, login, login_norm, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", id, login, login, now, now)
			return id
		}
		uid := newUser("bench")
		w.user = &auth.Principal{UserID: uid, Login: "bench"}
		var groups []string
		for i := 0; i < 100; i++ {
			g := uuid.NewString()
			exec("INSERT INTO groups (id, name, group_type, created_at, updated_at) VALUES (?, ?, 'portal', ?, ?)", g, fmt.Sprintf("g%d", i), now, now)
			exec("INSERT INTO group_members (group_id, user_id, added_at) VALUES (?, ?, ?)", g, uid, now)
			groups = append(groups, g)
		}
		others := make([]string, 200)
		for i := range others {
			others[i] = newUser(fmt.Sprintf("other%d", i))
		}
		var chain []acl.Ref
		var parent *acl.Ref
		for i := 0; i < 10; i++ {
			n := acl.Ref{Type: acl.Node, ID: uuid.NewString()}
			if err := e.Register(ctx, n, parent); err != nil {
				return err
			}
			chain = append(chain, n)
			parent = &chain[len(chain)-1]
		}
		list := acl.Ref{Type: acl.List, ID: uuid.NewString()}
		if err := e.Register(ctx, list, parent); err != nil {
			return err
		}
		w.item = acl.Ref{Type: acl.ListItem, ID: uuid.NewString()}
		if err := e.Register(ctx, w.item, &list); err != nil {
			return err
		}
		// side branches holding most of the records
		var side []acl.Ref
		for i := 0; i < 300; i++ {
			p := chain[rand.IntN(len(chain))]
			r := acl.Ref{Type: acl.List, ID: uuid.NewString()}
			if err := e.Register(ctx, r, &p); err != nil {
				return err
			}
			side = append(side, r)
		}
		records := 0
		insert := func(res acl.Ref, ptype, pid string, lvl acl.Level) {
			r, err := tx.ExecContext(ctx, `INSERT INTO acl_entries (id, resource_type, resource_id, principal_type, principal_id, level, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, uuid.NewString(), string(res.Type), res.ID, ptype, pid, int(lvl), now)
			if err != nil {
				b.Fatal(err)
			}
			n, _ := r.RowsAffected()
			records += int(n)
		}
		// on the chain: 3 of the user's groups, plus other users
		insert(chain[0], acl.PrincipalGroup, groups[7], acl.View)
		insert(chain[5], acl.PrincipalGroup, groups[42], acl.Add)
		insert(list, acl.PrincipalGroup, groups[99], acl.Edit)
		for i := 0; i < 40; i++ {
			insert(chain[i%10], acl.PrincipalUser, others[i], acl.View)
		}
		for records < 1000 {
			r := side[rand.IntN(len(side))]
			if rand.IntN(2) == 0 {
				insert(r, acl.PrincipalGroup, groups[rand.IntN(len(groups))], acl.Level(1+rand.IntN(4)))
			} else {
				insert(r, acl.PrincipalUser, others[rand.IntN(len(others))], acl.Level(1+rand.IntN(4)))
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if db.Dialect == store.Postgres {
		if _, err := db.W(ctx).ExecContext(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
	var n int
	_ = db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM acl_entries").Scan(&n)
	b.Logf("%s: %d ACL records", db.Dialect, n)
	if l, err := e.Level(ctx, w.user, w.item); err != nil || l != acl.Edit {
		b.Fatalf("setup: level %v %v", l, err)
	}
	return w
}

func benchACL(b *testing.B, db *store.DB) {
	w := setupACL(b, db)
	ctx := context.Background()
	b.Run("cached", func(b *testing.B) {
		if _, err := w.e.Level(ctx, w.user, w.item); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if l, _ := w.e.Level(ctx, w.user, w.item); l != acl.Edit {
				b.Fatal(l)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.e.Invalidate(ctx) // drops the cache (no transaction: at once)
			if l, _ := w.e.Level(ctx, w.user, w.item); l != acl.Edit {
				b.Fatal(l)
			}
		}
	})
	b.Run("cached-parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if l, _ := w.e.Level(ctx, w.user, w.item); l != acl.Edit {
					b.Fatal(l)
				}
			}
		})
	})
}

func BenchmarkACLSQLite(b *testing.B) { benchACL(b, storetest.OpenSQLite(b)) }

func BenchmarkACLPostgres(b *testing.B) {
	if storetest.PostgresURL(b) == "" {
		b.Skip("TEST_DATABASE_URL not set")
	}
	benchACL(b, storetest.OpenPostgres(b))
}
