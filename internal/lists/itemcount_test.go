package lists

import (
	"context"
	"fmt"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// A list made before the counters existed has neither triggers nor a count
// row: its first listing installs both from a real count, and later writes
// keep it.
func TestItemCounterInstalledForOlderLists(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Old", Slug: "old"})
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]Values, 25)
		for i := range rows {
			rows[i] = raws(map[string]any{"title": fmt.Sprintf("item %d", i)})
		}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		count := func() (int, bool) {
			n, ok, err := f.svc.st.itemCount(ctx, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n, ok
		}
		if n, ok := count(); !ok || n != 25 {
			t.Fatalf("after seed: %d %v", n, ok)
		}
		// make it look like a list from before migration 0203
		table := tableName(l.ID)
		drops := []string{"DROP TRIGGER " + table + "_counted_ins", "DROP TRIGGER " + table + "_counted_del"}
		if db.Dialect == store.Postgres {
			drops = []string{"DROP TRIGGER items_counted_ins ON " + table, "DROP TRIGGER items_counted_del ON " + table}
		}
		for _, q := range append(drops, "DELETE FROM list_item_counts") {
			if _, err := db.W(ctx).ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "uncounted"})); err != nil {
			t.Fatal(err)
		}
		if _, ok := count(); ok {
			t.Fatal("counted without triggers")
		}
		_, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{})
		if err != nil || meta.TotalInView != 26 || meta.Total != 26 {
			t.Fatalf("first listing: %v %+v", err, meta)
		}
		if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "counted"})); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.DeleteItem(ctx, f.admin, l.ID, "1"); err != nil {
			t.Fatal(err)
		}
		if n, ok := count(); !ok || n != 26 {
			t.Fatalf("after install, create and delete: %d %v", n, ok)
		}
	})
}
