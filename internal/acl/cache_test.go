package acl_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/bus"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestCacheAcrossInstances: two engines on one bus and one database (two API
// instances); a change through one is seen by the other once the message
// arrives, not only after the TTL.
func TestCacheAcrossInstances(t *testing.T) {
	db := storetest.OpenSQLite(t)
	b := bus.NewMemory()
	f := &fixture{t: t, db: db, e: acl.New(db, b), ctx: context.Background()}
	other := acl.New(db, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go other.Listen(ctx)
	for b.Topics() == 0 {
		time.Sleep(time.Millisecond)
	}
	u := f.user("u")
	node := f.obj(acl.Node, nil)
	if l, _ := other.Level(ctx, u, node); l != acl.None {
		t.Fatalf("before: %v", l)
	}
	f.grant(node, acl.PrincipalUser, u.UserID, acl.Edit)
	deadline := time.Now().Add(2 * time.Second)
	for {
		l, err := other.Level(ctx, u, node)
		if err != nil {
			t.Fatal(err)
		}
		if l == acl.Edit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other instance kept its stale level")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCacheRollbackAndConcurrency: a rolled-back grant changes nothing, and
// concurrent readers racing with writers never keep a stale level after the
// last invalidation (run with -race).
func TestCacheRollbackAndConcurrency(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		u := f.user("u")
		node := f.obj(acl.Node, nil)
		_ = db.InTx(f.ctx, func(ctx context.Context, _ *store.Tx) error {
			if _, err := f.e.Grant(ctx, node, acl.PrincipalUser, u.UserID, acl.Delete); err != nil {
				t.Fatal(err)
			}
			if l, _ := f.e.Level(ctx, u, node); l != acl.Delete {
				t.Fatalf("inside the transaction: %v", l)
			}
			return context.Canceled // roll back
		})
		if l := f.level(u, node); l != acl.None {
			t.Fatalf("after rollback: %v", l)
		}

		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						if _, err := f.e.Level(f.ctx, u, node); err != nil {
							t.Error(err)
							return
						}
					}
				}
			}()
		}
		for _, l := range []acl.Level{acl.View, acl.Add, acl.Edit, acl.Delete, acl.View} {
			f.grant(node, acl.PrincipalUser, u.UserID, l)
		}
		close(stop)
		wg.Wait()
		if l := f.level(u, node); l != acl.View {
			t.Fatalf("final level %v", l)
		}
	})
}
