package search

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestHiddenMatchesTiming measures how the time of a reader's search grows
// with the number of matches the reader cannot view (SEARCH_TIMING=1; the
// residual difference is documented in GET /search). 20 visible matches,
// then 2,000 hidden ones are added; each search is page 1 of 20 with its
// exact total.
func TestHiddenMatchesTiming(t *testing.T) {
	if os.Getenv("SEARCH_TIMING") == "" {
		t.Skip("SEARCH_TIMING=1 measures the search time against hidden matches")
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		open, hidden := f.node("", "open"), f.node("", "hidden")
		f.grant(acl.Ref{Type: acl.Node, ID: open}, acl.View)
		seed := func(node string, n int) {
			f.tx(func(ctx context.Context) error {
				for i := 0; i < n; i++ {
					id := uuid.NewString()
					ref := acl.Ref{Type: acl.Node, ID: node}
					if err := f.acl.Register(ctx, acl.Ref{Type: acl.List, ID: id}, &ref); err != nil {
						return err
					}
					if err := f.svc.Put(ctx, Doc{Type: TypeList, ID: id, NodeID: node, ContainerID: id, Slug: "l" + id[:8],
						Title: fmt.Sprintf("quarterly ledger %d", i), Body: "numbers", UpdatedAt: time.Now().UTC()}); err != nil {
						return err
					}
				}
				return nil
			})
			if err := f.svc.FoldBits(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		measure := func(label string) time.Duration {
			r := testing.Benchmark(func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					found, err := f.svc.Search(context.Background(), f.reader, Request{Q: "ledger", Page: 1, Limit: 20})
					if err != nil || found.Total != 20 {
						b.Fatalf("%v: total %d", err, found.Total)
					}
				}
			})
			d := time.Duration(r.NsPerOp())
			t.Logf("%s: %v per search (%d runs)", label, d, r.N)
			return d
		}
		seed(open, 20)
		measure("20 visible, 0 hidden")
		seed(hidden, 2000)
		measure("20 visible, 2000 hidden")
	})
}
