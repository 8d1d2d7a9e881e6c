package lists

import (
	"context"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// An item table from before lean rows loses its search_text column on the
// first load of its list; q keeps working without the search index
// (case-insensitive contains over the text columns, Cyrillic included).
func TestLeanTableMigrationAndQWithoutIndex(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Old rows", Slug: "old-rows"})
		if err != nil {
			t.Fatal(err)
		}
		rows := []Values{raws(map[string]any{"title": "Ёлка Зелёная"}), raws(map[string]any{"title": "Привет"}), raws(map[string]any{"title": "100% plain"})}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		sc := mustLoad(t, f.svc, l.ID)
		if _, err := db.W(ctx).ExecContext(ctx, "ALTER TABLE "+sc.list.Table+" ADD COLUMN search_text TEXT NOT NULL DEFAULT ''"); err != nil {
			t.Fatal(err)
		}
		leanDone.Delete(db.Dialect.String() + "/" + sc.list.Table)
		f.svc.schemas.drop(l.ID)
		mustLoad(t, f.svc, l.ID)
		if has, err := f.svc.st.hasColumn(ctx, sc.list.Table, "search_text"); err != nil || has {
			t.Fatalf("search_text still there: %v %v", has, err)
		}
		for q, want := range map[string]int{"ЁЛКА": 1, "зелёная": 1, "зеленая": 0, "ПРИВ": 1, "100%": 1, "0%p": 0, "PLAIN": 1, "zzz": 0} {
			_, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Q: q})
			if err != nil {
				t.Fatal(err)
			}
			if meta.Total != want {
				t.Errorf("q=%s: total %d, want %d", q, meta.Total, want)
			}
		}
	})
}
