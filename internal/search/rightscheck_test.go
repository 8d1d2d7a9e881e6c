package search

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestCrawlRepairsRights: the crawler's consistency pass finds the item and
// file entries whose stored rights differ from the access-control registry
// (an isolated file stored as inheriting, a folder added to a file's chain,
// an entry whose resource is no longer registered) and repairs them; the
// reader then finds exactly what the acl engine lets it view.
func TestCrawlRepairsRights(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		nodeID := f.node("", "check")
		nref := acl.Ref{Type: acl.Node, ID: nodeID}
		libID, listID := uuid.NewString(), uuid.NewString()
		lib := f.object(acl.Library, nref, Doc{Type: TypeLibrary, ID: libID, NodeID: nodeID, ContainerID: libID, Slug: "docs", Title: "library"})
		list := f.object(acl.List, nref, Doc{Type: TypeList, ID: listID, NodeID: nodeID, ContainerID: listID, Slug: "tasks", Title: "list"})
		file := func(parent acl.Ref, n int64, title string) acl.Ref {
			return f.object(acl.File, parent, Doc{Type: TypeFile, ID: uuid.NewString(), NodeID: nodeID, ContainerID: libID, Slug: "docs", Number: n, Title: title})
		}
		secret := file(lib, 1, "secret heron")
		shared := file(lib, 2, "shared folder")
		private := file(lib, 3, "private folder")
		inner := file(private, 4, "inner heron")
		plain := file(lib, 5, "plain heron")
		item := f.object(acl.ListItem, list, Doc{Type: TypeItem, ID: uuid.NewString(), NodeID: nodeID, ContainerID: listID, Slug: "tasks", Number: 1, Title: "item heron"})
		f.grant(nref, acl.View)
		f.isolate(secret, true)
		f.isolate(private, true)
		f.isolate(lib, true)
		f.grant(shared, acl.View) // the reader views the shared folder only
		if got := f.search(f.reader, "heron"); len(got) != 1 || got[0] != "item heron /check/lists/tasks?item=1" {
			t.Fatalf("before the corruption the reader finds %q", got)
		}

		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W(ctx).ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		// the isolated file stored as inheriting from the (isolated) library;
		// the file in the isolated folder stored under the shared folder
		exec("UPDATE search_entries SET boundary = NULL WHERE id = ?", secret.ID)
		exec("UPDATE search_entries SET boundary = NULL WHERE id = ?", inner.ID)
		exec("DELETE FROM search_scopes WHERE entry_id = ?", inner.ID)
		exec("INSERT INTO search_scopes (entry_id, object_id) VALUES (?, ?)", plain.ID, shared.ID)
		// the list item's resource forgotten, its entry left behind
		f.tx(func(ctx context.Context) error { return f.acl.Forget(ctx, item) })
		f.isolate(lib, false)
		if got := f.search(f.reader, "heron"); len(got) != 4 {
			t.Fatalf("the corruption shows %q to the reader", got)
		}

		res, err := f.svc.Crawl(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rights.Checked != 6 || res.Rights.Repaired != 3 || res.Rights.Removed != 1 {
			t.Fatalf("consistency pass %+v", res.Rights)
		}
		want := []string{"plain heron /check/libraries/docs?file=5"} // through the library, restored
		if got := f.search(f.reader, "heron"); len(got) != 1 || got[0] != want[0] {
			t.Fatalf("after the pass the reader finds %q, want %q", got, want)
		}
		for _, r := range []acl.Ref{secret, inner} {
			if lvl, err := f.acl.Level(ctx, f.reader, r); err != nil || lvl != acl.None {
				t.Fatalf("the reader has level %d on %s (%v)", lvl, r.ID, err)
			}
		}
		if again, err := f.svc.CheckRights(ctx); err != nil || again != (RightsCheck{Checked: 5}) {
			t.Fatalf("second pass %+v, %v", again, err)
		}
	})
}
