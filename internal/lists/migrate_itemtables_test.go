package lists

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// migrateItemTablesNow runs the item-table step as a database whose tables have
// an older layout gets it: loading the list first changes nothing (no read
// runs DDL), then the ordinary migrations bring the table to the current
// layout.
func migrateItemTablesNow(t *testing.T, f *fixture, db *store.DB, listID string) {
	t.Helper()
	ctx := context.Background()
	f.svc.schemas.drop(listID)
	sc := mustLoad(t, f.svc, listID)
	before, err := f.svc.st.columns(ctx, sc.list.Table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.W(ctx).ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = ?", ItemTablesStep); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if after, err := f.svc.st.columns(ctx, sc.list.Table); err != nil || len(after) != len(before) {
		t.Fatalf("migrations without the item-table step changed the table: %v %v", after, err)
	}
	if err := db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), MigrationSteps()...); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", ItemTablesStep).Scan(&n); err != nil || n != 1 {
		t.Fatalf("item-table step not recorded: %d %v", n, err)
	}
	f.svc.schemas.drop(listID)
	f.svc.adhoc.forget(sc.list.Table)
}

// An item table with a search_text column loses it in the item-table
// migration; q keeps working without the search index (case-insensitive
// contains over the text columns, Cyrillic included).
func TestItemTableMigrationSearchTextAndQWithoutIndex(t *testing.T) {
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
		f.svc.schemas.drop(l.ID)
		mustLoad(t, f.svc, l.ID)
		if has, err := f.svc.st.hasColumn(ctx, sc.list.Table, "search_text"); err != nil || !has {
			t.Fatalf("a load changed the table: %v %v", has, err)
		}
		migrateItemTablesNow(t, f, db, l.ID)
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
