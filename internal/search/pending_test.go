package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// The worker's merge empties the GIN pending list on PostgreSQL, and what
// was pending stays findable; on SQLite MergePending returns at once.
func TestMergePending(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		if db.Dialect != store.Postgres {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			f.svc.MergePending(ctx)
			if time.Since(start) > time.Second {
				t.Fatal("MergePending waited on SQLite")
			}
			return
		}
		n := f.node("", "pending")
		for i := range 30 {
			id := uuid.NewString()
			f.object(acl.List, acl.Ref{Type: acl.Node, ID: n}, Doc{Type: TypeList, ID: id, NodeID: n, ContainerID: id, Slug: fmt.Sprintf("p%d", i), Title: "walrus pending"})
		}
		ctx := context.Background()
		first, err := f.svc.st.mergePending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if first < 1 {
			t.Fatalf("merged %d pending pages after 30 new entries", first)
		}
		if again, err := f.svc.st.mergePending(ctx); err != nil || again != 0 {
			t.Fatalf("second merge: %d pages, %v", again, err)
		}
		if got := f.search(f.admin, "walrus"); len(got) != 30 {
			t.Fatalf("after the merge %d of 30 entries are found", len(got))
		}
	})
}
