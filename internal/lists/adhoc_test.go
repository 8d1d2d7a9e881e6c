package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/query"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// Ad-hoc sorts and filters build their index in the background; totals and
// pages are the same with and without it (one pass or page walk plus count),
// on every page including past the end.
func TestAdhocIndexesAndOnePassTotals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		f.svc.adhoc.minItems = 10
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Adhoc", Slug: "adhoc"})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range [][2]string{{"amount", "number"}, {"code", "text"}} {
			name, typ := fd[0], fd[1]
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ}); err != nil {
				t.Fatal(err)
			}
		}
		rows := make([]Values, 40)
		for i := range rows {
			rows[i] = raws(map[string]any{"title": fmt.Sprintf("Item %02d", i), "amount": i % 7, "code": fmt.Sprintf("Код-%02d", i)})
		}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		filter := `{"logic":"and","conditions":[{"column":"amount","operator":"gte","value":2},{"column":"code","operator":"contains","value":"КОД-1"}]}`
		// codes 10-19 with amount >= 2: i%7 >= 2 for i in 10..19
		want := 0
		for i := 10; i < 20; i++ {
			if i%7 >= 2 {
				want++
			}
		}
		list := func(page int) ([]ItemOut, ListMeta) {
			t.Helper()
			f.svc.counts = newCountCache() // every total counted
			items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Page: page, Limit: 3, Filter: filter, Sort: "amount:desc,code:asc"})
			if err != nil {
				t.Fatal(err)
			}
			return items, meta
		}
		pages := func() []string {
			var got []string
			for p := 1; p <= 4; p++ {
				items, meta := list(p)
				if meta.Total != want || meta.TotalInView != 40 {
					t.Fatalf("page %d: total %d (want %d), totalInView %d", p, meta.Total, want, meta.TotalInView)
				}
				for _, it := range items {
					j, _ := json.Marshal(it.FieldValues)
					got = append(got, string(j))
				}
			}
			return got
		}
		if ok, _ := f.svc.orderIndexed(ctx, mustLoad(t, f.svc, l.ID), nil, query.FilterSpec{}); !ok {
			t.Fatal("the item number orders by its primary key")
		}
		before := pages() // first listing: no index, one pass
		f.svc.adhoc.wait()
		sc := mustLoad(t, f.svc, l.ID)
		amount, _ := sc.resolve("amount")
		if !f.svc.adhoc.has(ctx, sc.list.Table, sortIndexWanted(sc.list, amount.Column(), true)) {
			t.Fatal("no ad-hoc sort index after an ad-hoc sort")
		}
		if !f.svc.adhoc.has(ctx, sc.list.Table, filterIndexWanted(sc.list, amount.Column())) {
			t.Fatal("no ad-hoc filter index after a range filter")
		}
		var n int
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM list_adhoc_indexes WHERE list_id = ?", l.ID).Scan(&n); err != nil || n < 2 {
			t.Fatalf("recorded ad-hoc indexes: %d %v", n, err)
		}
		code, _ := sc.resolve("code")
		if got := f.svc.adhoc.has(ctx, sc.list.Table, trigramIndexWanted(sc.list, code.CI())); got != (db.Dialect == store.Postgres) {
			t.Fatalf("trigram index for contains of 3+ characters: %v on %s", got, db.Dialect)
		}
		after := pages() // page walk of the index plus a count
		if fmt.Sprint(before) != fmt.Sprint(after) || len(before) != want {
			t.Fatalf("pages differ with the index:\n%v\n%v", before, after)
		}
		if items, meta := list(50); len(items) != 0 || meta.Total != want {
			t.Fatalf("past the end: %d items, total %d", len(items), meta.Total)
		}
		// an index not wanted for 30 days is dropped by the sweep
		name := sortIndexWanted(sc.list, amount.Column(), true).name
		if _, err := db.W(ctx).ExecContext(ctx, "UPDATE list_adhoc_indexes SET last_used_at = ? WHERE name = ?", time.Now().Add(-31*24*time.Hour).UTC(), name); err != nil {
			t.Fatal(err)
		}
		f.svc.adhoc.sweep()
		if f.svc.adhoc.has(ctx, sc.list.Table, sortIndexWanted(sc.list, amount.Column(), true)) {
			t.Fatal("unused ad-hoc index kept")
		}
		if items, meta := list(2); len(items) != 3 || meta.Total != want {
			t.Fatalf("after the sweep: %d items, total %d", len(items), meta.Total)
		}
		f.svc.adhoc.wait()
		// dropping the field drops its ad-hoc indexes (SQLite refuses to drop indexed columns)
		if err := f.svc.DeleteField(ctx, f.admin, l.ID, amount.ID); err != nil {
			t.Fatal(err)
		}
	})
}

func mustLoad(t *testing.T, s *Service, id string) *schema {
	t.Helper()
	sc, err := s.load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// wantedIndexes: which conditions and sorts ask for which index.
func TestWantedIndexes(t *testing.T) {
	l := &List{ID: "00000000-0000-0000-0000-000000000001", Table: tableName("00000000-0000-0000-0000-000000000001")}
	defs := map[string]*field.Def{
		"title":  {ID: "t", Type: field.Text, Col: 1},
		"amount": {ID: "a", Type: field.Number, Col: 4},
		"owner":  {ID: "o", Type: field.Person, Col: 5},
		"id":     {ID: "id", Type: field.Number, Col: 0},
	}
	sc := &schema{list: l, byName: defs}
	names := func(ws []adhocIndex) []string {
		var out []string
		for _, w := range ws {
			n := strings.TrimPrefix(w.name, "ix"+strings.TrimPrefix(l.Table, "li")+"_")
			out = append(out, strings.Replace(n, strings.TrimPrefix(l.Table, "li"), "", 1))
		}
		return out
	}
	for _, tc := range []struct {
		sort   string
		filter string
		pg     bool
		want   string
	}{
		{"amount:desc", "", false, "[f_4_xd]"},
		{"amount:desc", `{"conditions":[{"column":"title","operator":"contains","value":"ab"},{"column":"amount","operator":"lte","value":3}]}`, false,
			"[f_4_xd ixt__f_4_sd__f_1_ci f_4_xf]"},
		{"title", `{"conditions":[{"column":"title","operator":"contains","value":"ab"},{"column":"amount","operator":"lte","value":3}]}`, false,
			"[f_1_ci_xa ixt__f_1_ci_sa__f_4 f_4_xf]"},
		{"title", `{"logic":"or","conditions":[{"column":"title","operator":"contains","value":"ab"},{"column":"amount","operator":"lte","value":3}]}`, false,
			"[f_1_ci_xa f_4_xf]"},
		{"title", "", false, "[f_1_ci_xa]"},
		{"id:desc", "", false, "[]"},
		{"", `{"conditions":[{"column":"amount","operator":"gte","value":1}]}`, false, "[f_4_xf]"},
		{"", `{"conditions":[{"column":"title","operator":"startsWith","value":"ab"}]}`, false, "[f_1_ci_xf]"},
		{"", `{"conditions":[{"column":"title","operator":"contains","value":"abc"}]}`, true, "[f_1_ci_xt]"},
		{"", `{"conditions":[{"column":"title","operator":"contains","value":"abc"}]}`, false, "[]"},
		{"", `{"conditions":[{"column":"title","operator":"contains","value":"ab"}]}`, true, "[]"},
		{"", `{"conditions":[{"column":"owner","operator":"eq","value":"[Я]"}]}`, true, "[]"},
		{"", `{"conditions":[{"column":"title","operator":"isEmpty"},{"column":"amount","operator":"ne","value":3}]}`, true, "[]"},
	} {
		keys, err := query.ParseSort("sort", tc.sort)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := query.ParseFilter("filter", tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		got := names(wantedIndexes(sc, keys, fs, tc.pg))
		if fmt.Sprint(got) != tc.want && !(len(got) == 0 && tc.want == "[]") {
			t.Errorf("sort %q filter %s pg=%v: %v, want %s", tc.sort, tc.filter, tc.pg, got, tc.want)
		}
	}
}

// Any reader can ask for new sort and filter combinations: the ad-hoc indexes
// of one list stop at adhocMaxPerList, so item writes are not taxed without end.
func TestAdhocIndexesCapped(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		f.svc.adhoc.minItems = 10
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Capped", Slug: "capped"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := 0; i < 6; i++ {
			name, typ := fmt.Sprintf("n%d", i), "number"
			names = append(names, name)
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ}); err != nil {
				t.Fatal(err)
			}
		}
		rows := make([]Values, 20)
		for i := range rows {
			v := map[string]any{"title": fmt.Sprintf("Item %02d", i)}
			for _, n := range names {
				v[n] = i
			}
			rows[i] = raws(v)
		}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		// every sort column and direction with range filters on two other columns
		for i, s := range names {
			for _, dir := range []string{"asc", "desc"} {
				a, b := names[(i+1)%len(names)], names[(i+2)%len(names)]
				filter := fmt.Sprintf(`{"logic":"and","conditions":[{"column":%q,"operator":"gte","value":1},{"column":%q,"operator":"lte","value":18}]}`, a, b)
				if _, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Page: 1, Limit: 5, Filter: filter, Sort: s + ":" + dir}); err != nil {
					t.Fatal(err)
				}
				f.svc.adhoc.wait()
			}
		}
		sc := mustLoad(t, f.svc, l.ID)
		f.svc.adhoc.forget(sc.list.Table)
		m, err := f.svc.adhoc.present(ctx, sc.list.Table)
		if err != nil {
			t.Fatal(err)
		}
		hex := strings.TrimPrefix(sc.list.Table, "li")
		n := 0
		for name := range m {
			if isAdhocIndex(hex, name) {
				n++
			}
		}
		if n != adhocMaxPerList {
			t.Fatalf("%d ad-hoc indexes, want the cap %d", n, adhocMaxPerList)
		}
		if items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Page: 1, Limit: 5, Sort: "n0:desc"}); err != nil || len(items) != 5 || meta.Total != 20 {
			t.Fatalf("listing beyond the cap: %d items, total %d, %v", len(items), meta.Total, err)
		}
	})
}

func TestIsAdhocIndex(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"ix_abc_f1_xa", true}, {"ix_abc_f1_xd", true}, {"ix_abc_f1_xf", true}, {"ix_abc_f1_xt", true},
		{"ixt_abc__f1_sd__f2", true}, {"ixd_abc__f1__f2", true},
		{"ix_abc_f1", false}, {"ix_abc_f1_sd", false}, {"ixs_abc__f1_sd__f2", false}, {"ixc_abc__f1__f2", false},
		{"ix_other_f1_xa", false},
	} {
		if got := isAdhocIndex("_abc", c.name); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// On SQLite the page of an and-filter with a sort walks the sort index with
// the filter's columns trailing, named in the query (INDEXED BY), whatever
// ANALYZE taught the planner; an index dropped behind the service's back only
// costs the hint.
func TestSQLitePinsTheCompositeSortIndex(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		f.svc.adhoc.minItems = 10
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Pinned", Slug: "pinned"})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"amount", "due"} {
			name, typ := name, "number"
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ}); err != nil {
				t.Fatal(err)
			}
		}
		rows := make([]Values, 60)
		for i := range rows {
			rows[i] = raws(map[string]any{"title": fmt.Sprintf("Item %02d", i), "amount": i % 9, "due": i % 13})
		}
		if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
			t.Fatal(err)
		}
		filter := `{"logic":"and","conditions":[{"column":"amount","operator":"gte","value":2},{"column":"amount","operator":"lte","value":6}]}`
		params := ListParams{Page: 2, Limit: 7, Filter: filter, Sort: "due:desc"}
		list := func() string {
			t.Helper()
			f.svc.counts = newCountCache()
			items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, params)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, it := range items {
				ids = append(ids, it.ID)
			}
			return fmt.Sprint(ids, meta.Total)
		}
		before := list()
		f.svc.adhoc.wait()
		if _, err := db.W(ctx).ExecContext(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		sc := mustLoad(t, f.svc, l.ID)
		keys := []query.SortKey{{Column: "due", Direction: "desc"}}
		user := query.FilterSpec{Logic: "and", Conditions: []query.FilterCondition{{Column: "amount", Operator: "gte", Value: 2.0}}}
		indexed, pin := f.svc.orderIndexed(ctx, sc, keys, user)
		if !indexed || (pin != "") != (db.Dialect == store.SQLite) || pin != "" && !strings.HasPrefix(pin, "ixt") {
			t.Fatalf("%s: indexed %v, pin %q", db.Dialect, indexed, pin)
		}
		if got := list(); got != before {
			t.Fatalf("pinned page %s, unpinned %s", got, before)
		}
		if pin != "" {
			if _, err := db.W(ctx).ExecContext(ctx, "DROP INDEX "+pin); err != nil {
				t.Fatal(err)
			}
			if got := list(); got != before {
				t.Fatalf("after the index went: %s, want %s", got, before)
			}
		}
	})
}
