package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"coreportal/internal/field"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// foldCases are case-insensitive filters and sorts on text and choice values
// (Cyrillic: ё is not е, Д folds to д), answered identically on both
// databases, before and after an old table is migrated.
var foldCases = []struct {
	filter, sort string
	want         []string
}{
	{`{"conditions":[{"column":"title","operator":"eq","value":"ЁЛКА"}]}`, "", []string{"Ёлка"}},
	{`{"conditions":[{"column":"title","operator":"eq","value":"елка"}]}`, "", nil},
	{`{"conditions":[{"column":"title","operator":"contains","value":"Д"}]}`, "", []string{"Дом", "Дым", "дом"}},
	{`{"conditions":[{"column":"title","operator":"startsWith","value":"ДО"}]}`, "", []string{"Дом", "дом"}},
	{`{"conditions":[{"column":"title","operator":"gt","value":"ДЫМ"}]}`, "", []string{"Ёлка", "ёж"}},
	{`{"conditions":[{"column":"title","operator":"in","value":["ДОМ","ALPHA"]}]}`, "", []string{"Дом", "alpha", "дом"}},
	{`{"conditions":[{"column":"title","operator":"ne","value":"дом"}]}`, "", []string{"Zebra", "Дым", "Ёлка", "alpha", "ёж"}},
	{"", "title:asc", []string{"alpha", "Zebra", "дом", "Дом", "Дым", "ёж", "Ёлка"}},
	{"", "title:desc", []string{"Ёлка", "ёж", "Дым", "дом", "Дом", "Zebra", "alpha"}},
	{`{"conditions":[{"column":"tags","operator":"eq","value":"ДОМ"}]}`, "", []string{"Ёлка", "ёж", "дом"}},
	{`{"conditions":[{"column":"tags","operator":"in","value":["ёж"]}]}`, "", []string{"Дом", "Ёлка"}},
	{`{"conditions":[{"column":"tags","operator":"ne","value":"ЁЖ"}]}`, "", []string{"Zebra", "Дым", "alpha", "дом", "ёж"}},
	{`{"conditions":[{"column":"tags","operator":"contains","value":"Ё"}]}`, "", []string{"Дом", "Ёлка"}},
	{`{"conditions":[{"column":"tags","operator":"startsWith","value":"д"}]}`, "", []string{"Ёлка", "ёж", "дом"}},
	{`{"conditions":[{"column":"tags","operator":"isEmpty"}]}`, "", []string{"Zebra", "Дым"}},
	// a choice with a quote: its JSON escape neither matches "дом" nor hides it
	{`{"conditions":[{"column":"tags","operator":"eq","value":"A\"ДОМ"}]}`, "", []string{"alpha"}},
	{`{"conditions":[{"column":"tags","operator":"contains","value":"\"д"}]}`, "", []string{"alpha"}},
	{`{"conditions":[{"column":"tags","operator":"contains","value":","}]}`, "", nil},
	{`{"conditions":[{"column":"note","operator":"contains","value":"МИР"}]}`, "", []string{"Дым"}},
	// person keys are found in the stored JSON (no key list)
	{`{"conditions":[{"column":"owner","operator":"eq","value":"[Я]"}]}`, "", []string{"Ёлка", "Дым"}},
	{`{"conditions":[{"column":"owner","operator":"ne","value":"[Я]"}]}`, "", []string{"Zebra", "Дом", "alpha", "дом", "ёж"}},
	{`{"conditions":[{"column":"owner","operator":"in","value":["[Я]","0f8fad5b-d9cb-469f-a165-70867728950e"]}]}`, "", []string{"Ёлка", "Дым"}},
}

func TestFoldedFiltersAndShadowColumnMigration(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Folded", Slug: "folded"})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range []struct {
			name, typ string
			st        json.RawMessage
		}{{"tags", "choice", json.RawMessage(`{"choices":["Ёж","Дом","дом","a\"Дом"],"allowMultiple":true}`)}, {"note", "multiline_text", nil}, {"owner", "person", nil}} {
			name, typ := fd.name, fd.typ
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ, Settings: fd.st}); err != nil {
				t.Fatal(err)
			}
		}
		rows := []Values{
			raws(map[string]any{"title": "Ёлка", "tags": []string{"Ёж", "Дом"}, "owner": f.admin.UserID}),
			raws(map[string]any{"title": "ёж", "tags": []string{"дом"}}),
			raws(map[string]any{"title": "Дом", "tags": []string{"Ёж"}}),
			raws(map[string]any{"title": "дом", "tags": []string{"дом"}}),
			raws(map[string]any{"title": "Дым", "note": "Привет\nМир", "owner": []string{f.admin.UserID}}),
			raws(map[string]any{"title": "alpha", "tags": []string{`a"Дом`}}),
			raws(map[string]any{"title": "Zebra"}),
		}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		view := json.RawMessage(`{"sort":[{"column":"title","direction":"asc"}],"filter":{"conditions":[{"column":"note","operator":"startsWith","value":"п"}]}}`)
		vt := "By title"
		if _, err := f.svc.CreateView(ctx, f.admin, l.ID, ViewInput{Title: &vt, Config: view}); err != nil {
			t.Fatal(err)
		}
		check := func(stage string) {
			t.Helper()
			sc := mustLoad(t, f.svc, l.ID)
			title, _ := sc.resolve("title")
			for _, c := range foldCases {
				items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: c.filter, Sort: c.sort, Limit: 100})
				if err != nil {
					t.Fatalf("%s %s: %v", stage, c.filter, err)
				}
				var got []string
				for _, it := range items {
					got = append(got, fmt.Sprint(it.FieldValues[title.ID]))
				}
				want := c.want
				if c.sort == "" { // no order asked: compare as sets
					slices.Sort(got)
					want = slices.Sorted(slices.Values(want))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: filter %s sort %s: %q, want %q", stage, c.filter, c.sort, got, c.want)
				}
			}
		}
		check("new table")

		// the layout of older releases: lower-cased copies with their indexes, default collation
		sc := mustLoad(t, f.svc, l.ID)
		var folded []*field.Def
		for _, fd := range sc.fields {
			if fd.Col > 0 && foldedType(fd.Type) {
				folded = append(folded, fd)
			}
		}
		if len(folded) != 3 || folded[0].InternalName != "title" {
			t.Fatalf("folded fields: %v", folded)
		}
		w := db.W(ctx)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := w.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for _, fd := range folded {
			for _, ix := range []string{indexName(sc.list, fd.Column()+"_ci"), indexName(sc.list, fd.Column()+"_ci") + "_sa"} {
				exec("DROP INDEX IF EXISTS " + ix)
			}
			if db.Dialect == store.Postgres {
				exec("ALTER TABLE " + sc.list.Table + " ALTER COLUMN " + fd.Column() + " TYPE TEXT COLLATE \"default\"")
			}
			exec("ALTER TABLE " + sc.list.Table + " ADD COLUMN " + fd.CI() + " TEXT")
			old := field.Fold(fd.Column()) // what Go wrote: cp_lower folds as it did
			if fd.Type == field.Choice {
				old = field.ChoiceFrame(fd.Column())
			}
			exec("UPDATE " + sc.list.Table + " SET " + fd.CI() + " = " + old)
			exec("CREATE INDEX " + indexName(sc.list, fd.Column()+"_ci") + " ON " + sc.list.Table + " (" + fd.CI() + ")")
		}
		owner, _ := sc.resolve("owner")
		exec("ALTER TABLE " + sc.list.Table + " ADD COLUMN " + owner.Keys() + " TEXT")
		exec("UPDATE " + sc.list.Table + " SET " + owner.Keys() + " = 'x' WHERE " + owner.Column() + " IS NOT NULL")
		exec("CREATE INDEX " + indexName(sc.list, owner.Keys()) + " ON " + sc.list.Table + " (" + owner.Keys() + ")")
		exec("CREATE INDEX " + indexName(sc.list, folded[0].Column()+"_ci") + "_sa ON " + sc.list.Table + " ((" + folded[0].CI() + " IS NULL), " + folded[0].CI() + " ASC, id DESC)")
		migrateItemTablesNow(t, f, db, l.ID)
		check("migrated table")

		cols, err := f.svc.st.columns(ctx, sc.list.Table)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range append(folded, owner) {
			if cols[fd.Keys()] || fd.Type != field.Person && cols[fd.CI()] || !cols[fd.Column()] {
				t.Errorf("%s: shadow still there or value gone: %v", fd.InternalName, cols)
			}
		}
		ixs, err := f.svc.adhoc.present(ctx, sc.list.Table)
		if err != nil {
			t.Fatal(err)
		}
		// the view's sort and filter indexes are back, on the folded expressions
		for _, want := range []string{indexName(sc.list, field.Fold(folded[0].Column())), indexName(sc.list, field.Fold(folded[0].Column())) + "_sa"} {
			if !ixs[want] {
				t.Errorf("index %s missing after the migration: %v", want, ixs)
			}
		}
		if db.Dialect == store.Postgres {
			var coll string
			q := "SELECT coalesce(collation_name, '') FROM information_schema.columns WHERE table_name = ? AND column_name = ?"
			if err := db.Q(ctx).QueryRowContext(ctx, q, sc.list.Table, folded[0].Column()).Scan(&coll); err != nil || coll != "C" {
				t.Errorf("collation of %s: %q %v", folded[0].Column(), coll, err)
			}
		}
		// writes after the migration: no copy to fill, filters see the new value
		if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "ДОМИК"})); err != nil {
			t.Fatal(err)
		}
		items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: `{"conditions":[{"column":"title","operator":"startsWith","value":"домик"}]}`})
		if err != nil || len(items) != 1 {
			t.Fatalf("new item after the migration: %d %v", len(items), err)
		}
	})
}
