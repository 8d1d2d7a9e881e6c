package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/field"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// creatorCases are filters, sorts and q on the created_by system field and
// the __created_at/__updated_at meta columns: composed from the row's
// created_by and the users table, they answer the same before and after an
// old table is migrated, on both databases. Items: a1, a2 by the admin, o1 by
// a user unknown to the users table (no display name).
var creatorCases = []struct {
	filter, sort, q string
	want            []string
}{
	{`{"conditions":[{"column":"created_by","operator":"eq","value":"[Я]"}]}`, "", "", []string{"a1", "a2"}},
	{`{"conditions":[{"column":"created_by","operator":"ne","value":"[Я]"}]}`, "", "", []string{"o1"}},
	{`{"conditions":[{"column":"created_by","operator":"in","value":["0f8fad5b-d9cb-469f-a165-70867728950e"]}]}`, "", "", []string{"o1"}},
	{`{"conditions":[{"column":"created_by","operator":"eq","value":{"principalType":"user","id":"0F8FAD5B-D9CB-469F-A165-70867728950E"}}]}`, "", "", []string{"o1"}},
	{`{"conditions":[{"column":"created_by","operator":"isEmpty"}]}`, "", "", nil},
	{`{"conditions":[{"column":"created_by","operator":"isNotEmpty"}]}`, "", "", []string{"a1", "a2", "o1"}},
	{`{"conditions":[{"column":"created_by","operator":"contains","value":"DMI"}]}`, "", "", []string{"a1", "a2"}},
	{`{"conditions":[{"column":"created_by","operator":"startsWith","value":"ADM"}]}`, "", "", []string{"a1", "a2"}},
	{`{"conditions":[{"column":"created_by","operator":"startsWith","value":"dmi"}]}`, "", "", nil},
	{"", "created_by:asc", "", []string{"o1", "a2", "a1"}}, // o1's user is gone: an empty name
	{"", "created_by:desc", "", []string{"a2", "a1", "o1"}},
	{`{"conditions":[{"column":"__created_at","operator":"eq","value":"[Сегодня]"}]}`, "", "", []string{"a1", "a2", "o1"}},
	{`{"conditions":[{"column":"__created_at","operator":"lt","value":"2000-01-01"}]}`, "", "", nil},
	{`{"conditions":[{"column":"__updated_at","operator":"gte","value":"2000-01-01T00:00:00Z"}]}`, "", "", []string{"a1", "a2", "o1"}},
	{"", "__created_at:desc", "", []string{"a2", "a1", "o1"}},
	{"", "id:desc", "", []string{"a2", "a1", "o1"}},
	{"", "", "admin", []string{"a1", "a2"}},
}

func TestSystemColumnMigration(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Rows", Slug: "rows"})
		if err != nil {
			t.Fatal(err)
		}
		var adminName string
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT display_name FROM users WHERE id = ?", f.admin.UserID).Scan(&adminName); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(strings.ToLower(adminName), "admin") {
			t.Fatalf("admin display name %q", adminName)
		}
		other := &auth.Principal{UserID: "0f8fad5b-d9cb-469f-a165-70867728950e", DisplayName: "Ghost", IsAdmin: true}
		f.svc.now = func() time.Time { return time.Now().Add(-time.Minute) }
		if err := f.svc.SeedItems(ctx, other, l.ID, []Values{raws(map[string]any{"title": "o1"})}); err != nil {
			t.Fatal(err)
		}
		f.svc.now = time.Now
		var gone ItemOut
		for _, title := range []string{"a1", "a2", "gone"} {
			it, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": title, "created_by": "0f8fad5b-d9cb-469f-a165-70867728950e"}))
			if err != nil {
				t.Fatal(err)
			}
			gone = it
		}
		// the last number is taken for good: a new item must never reuse it
		if _, err := f.svc.DeleteItem(ctx, f.admin, l.ID, fmt.Sprint(gone.ID)); err != nil {
			t.Fatal(err)
		}
		sc := mustLoad(t, f.svc, l.ID)
		titleF, createdF := sc.field(sysTitle), sc.field(sysCreatedBy)
		if !isCreator(createdF) {
			t.Fatal("created_by is not composed from the row")
		}
		snapshot := func(stage string) map[string]ItemOut {
			t.Helper()
			items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Limit: 100})
			if err != nil {
				t.Fatalf("%s: %v", stage, err)
			}
			out := map[string]ItemOut{}
			for _, it := range items {
				out[fmt.Sprint(it.FieldValues[titleF.ID])] = it
			}
			return out
		}
		vt := "By creator"
		byCreator, err := f.svc.CreateView(ctx, f.admin, l.ID, ViewInput{Title: &vt,
			Config: json.RawMessage(`{"sort":[{"column":"created_by","direction":"asc"}],"groupBy":{"column":"created_by"}}`)})
		if err != nil {
			t.Fatal(err)
		}
		check := func(stage string) {
			t.Helper()
			for _, c := range creatorCases {
				items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: c.filter, Sort: c.sort, Q: c.q, Limit: 100})
				if err != nil {
					t.Fatalf("%s: filter %s sort %s q %s: %v", stage, c.filter, c.sort, c.q, err)
				}
				var got []string
				for _, it := range items {
					got = append(got, fmt.Sprint(it.FieldValues[titleF.ID]))
				}
				want := c.want
				if c.sort == "" {
					slices.Sort(got)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: filter %s sort %s q %s: %q, want %q", stage, c.filter, c.sort, c.q, got, want)
				}
			}
			byTitle := snapshot(stage)
			a1 := byTitle["a1"]
			if sub, ok := a1.FieldValues[createdF.ID].(field.Subject); !ok || sub.ID != f.admin.UserID || sub.Display != adminName || sub.PrincipalType != "user" {
				t.Errorf("%s: created_by of a1 = %#v", stage, a1.FieldValues[createdF.ID])
			}
			if a1.CreatedBy != f.admin.UserID || a1.UpdatedBy != f.admin.UserID || a1.UpdatedByUser.DisplayName != adminName {
				t.Errorf("%s: system columns of a1: %+v", stage, a1)
			}
			got, err := f.svc.GetItem(ctx, f.admin, l.ID, a1.GUID)
			if err != nil || got.ID != a1.ID || !got.CreatedAt.Equal(a1.CreatedAt) || got.CreatedAt.Nanosecond()%int(time.Millisecond) != 0 {
				t.Errorf("%s: item by guid: %+v %v", stage, got, err)
			}
			if sub, _ := byTitle["o1"].FieldValues[createdF.ID].(field.Subject); sub.ID != other.UserID || sub.Display != "" {
				t.Errorf("%s: created_by of o1 = %#v", stage, sub)
			}
			// a view grouped and sorted by the creator: no index on the
			// name, groups carry the subject with its name
			_, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{ViewID: byCreator.ID, Limit: 100})
			if err != nil || meta.Groups == nil || len(*meta.Groups) != 2 {
				t.Fatalf("%s: grouped by creator: %+v %v", stage, meta.Groups, err)
			}
			found := false
			for _, g := range *meta.Groups {
				if sub, ok := g.Value.(field.Subject); ok && sub.ID == f.admin.UserID {
					found = sub.Display == adminName && g.Count == 2
				}
			}
			if !found {
				t.Errorf("%s: groups %#v", stage, *meta.Groups)
			}
		}
		check("new table")
		before := snapshot("new table")

		// the layout of older releases: text guids and stamps, the creator stored as JSON
		// with a lower-cased copy and an index on it
		toOldLayout(t, db, sc.list.Table, createdF.Col, adminName)
		if old, err := f.svc.st.oldSystemColumns(ctx, sc.list.Table); err != nil || !old {
			t.Fatalf("old layout not made: %v %v", old, err)
		}
		migrateItemTablesNow(t, f, db, l.ID)
		check("migrated table")
		after := snapshot("migrated table")
		for k, b := range before {
			bj, _ := json.Marshal(b)
			aj, _ := json.Marshal(after[k])
			if string(bj) != string(aj) {
				t.Errorf("item %s changed by the migration:\n%s\n%s", k, bj, aj)
			}
		}
		cols, err := f.svc.st.columns(ctx, sc.list.Table)
		if err != nil {
			t.Fatal(err)
		}
		c := fmt.Sprintf("f_%d", createdF.Col)
		if cols[c] || cols[c+"_ci"] {
			t.Errorf("created_by still stored: %v", cols)
		}
		if old, err := f.svc.st.oldSystemColumns(ctx, sc.list.Table); err != nil || old {
			t.Errorf("still the old layout: %v", err)
		}
		n, err := f.svc.itemCount(ctx, sc.list)
		if err != nil || n != 3 {
			t.Errorf("item count after the migration: %d %v", n, err)
		}
		// the counting triggers and the numbering survived
		it, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "new"}))
		if err != nil {
			t.Fatal(err)
		}
		if it.ID <= gone.ID {
			t.Errorf("new item number %d reuses a taken one (%d)", it.ID, gone.ID)
		}
		if n, err := f.svc.itemCount(ctx, sc.list); err != nil || n != 4 {
			t.Errorf("item count after a create: %d %v", n, err)
		}
		// another list looks items up by their creator's name
		l2, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Refs", Slug: "refs"})
		if err != nil {
			t.Fatal(err)
		}
		name, typ := "src", "lookup"
		lf, err := f.svc.CreateField(ctx, f.admin, l2.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ,
			Settings: json.RawMessage(`{"lookupListId":"` + l.ID + `","lookupFieldId":"` + createdF.ID + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := f.svc.CreateItem(ctx, f.admin, l2.ID, raws(map[string]any{"title": "r", "src": before["a1"].ID}))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := f.svc.GetItem(ctx, f.admin, l2.ID, fmt.Sprint(ref.ID)); err != nil || !strings.Contains(fmt.Sprint(got.FieldValues[lf.ID]), adminName) {
			t.Errorf("lookup by creator: %v %v", got.FieldValues[lf.ID], err)
		}
		// a second run (another instance) finds nothing to do
		if changed, err := f.svc.migrateSystemColumns(ctx, mustLoad(t, f.svc, l.ID)); err != nil || changed {
			t.Errorf("second migration: %v %v", changed, err)
		}
	})
}

// toOldLayout gives an item table text guids and stamps and a stored creator
// column with a lower-cased copy: the layout of tables made by older releases.
func toOldLayout(t *testing.T, db *store.DB, table string, col int, adminName string) {
	t.Helper()
	ctx := context.Background()
	w := db.W(ctx)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	fc := fmt.Sprintf("f_%d", col)
	creator := `'[{"principalType":"user","id":"' || %s || '","display":"' || coalesce((SELECT display_name FROM users WHERE id = %s), '') || '"}]'`
	if db.Dialect == store.Postgres {
		text := func(c string) string {
			return `to_char(to_timestamp(` + c + ` / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
		}
		exec(`ALTER TABLE ` + table + ` ALTER COLUMN created_at TYPE TEXT COLLATE "C" USING ` + text("created_at") +
			`, ALTER COLUMN updated_at TYPE TEXT COLLATE "C" USING ` + text("updated_at") + `, ADD COLUMN ` + fc + ` TEXT, ADD COLUMN ` + fc + `_ci TEXT`)
		exec(`UPDATE ` + table + ` SET ` + fc + ` = ` + fmt.Sprintf(creator, "created_by::text", "created_by") + `, ` + fc + `_ci = chr(31) || lower(coalesce((SELECT display_name FROM users WHERE id = created_by), '')) || chr(31)`)
		exec(`CREATE INDEX ix_old_creator ON ` + table + ` (` + fc + `_ci)`)
		return
	}
	var ddl []string
	rows, err := w.QueryContext(ctx, "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL", table)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		ddl = append(ddl, s)
	}
	rows.Close()
	var seq int64
	if err := w.QueryRowContext(ctx, "SELECT seq FROM sqlite_sequence WHERE name = ?", table).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	defs := []string{"id INTEGER PRIMARY KEY AUTOINCREMENT", "guid TEXT NOT NULL UNIQUE", "created_by TEXT", "updated_by TEXT",
		"created_at TEXT NOT NULL", "updated_at TEXT NOT NULL", "inherits_permissions BOOLEAN NOT NULL DEFAULT TRUE", fc + " TEXT", fc + "_ci TEXT"}
	sel := []string{"id", "uuid_text(guid)", "uuid_text(created_by)", "uuid_text(updated_by)",
		"strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch')", "strftime('%Y-%m-%dT%H:%M:%fZ', updated_at / 1000.0, 'unixepoch')",
		"inherits_permissions", fmt.Sprintf(creator, "uuid_text(created_by)", "uuid_text(created_by)"),
		"char(31) || cp_lower(coalesce((SELECT display_name FROM users WHERE id = uuid_text(created_by)), '')) || char(31)"}
	names := []string{"id", "guid", "created_by", "updated_by", "created_at", "updated_at", "inherits_permissions", fc, fc + "_ci"}
	for _, c := range cols {
		if systemColumns[c.Name] {
			continue
		}
		defs = append(defs, c.Name+" TEXT")
		sel = append(sel, c.Name)
		names = append(names, c.Name)
	}
	exec("CREATE TABLE old_items (" + strings.Join(defs, ", ") + ")")
	exec("INSERT INTO old_items (" + strings.Join(names, ", ") + ") SELECT " + strings.Join(sel, ", ") + " FROM " + table)
	exec("DROP TABLE " + table)
	exec("ALTER TABLE old_items RENAME TO " + table)
	exec("UPDATE sqlite_sequence SET seq = ? WHERE name = ?", seq, table)
	for _, q := range ddl {
		exec(q)
	}
	exec("CREATE INDEX ix_old_creator ON " + table + " (" + fc + "_ci)")
}
