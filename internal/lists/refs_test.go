package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/principals"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// Subjects and target items of the person and lookup tests.
const (
	refAnn   = "0a000000-0000-4000-8000-000000000001"
	refBob   = "0a000000-0000-4000-8000-000000000002"
	refDasha = "0a000000-0000-4000-8000-000000000003"
	refTeam  = "0b000000-0000-4000-8000-000000000001"
	refOps   = "0b000000-0000-4000-8000-000000000002"
)

// refCases are filters and sorts on person (owner: users and groups,
// several) and lookup (city: several items of the list Cities) values, by id
// and by display, answered identically on both databases and before and
// after an old table is migrated.
var refCases = []struct {
	filter, sort string
	want         []string
}{
	{`{"conditions":[{"column":"owner","operator":"eq","value":"` + refAnn + `"}]}`, "", []string{"i1"}},
	{`{"conditions":[{"column":"owner","operator":"eq","value":{"principalType":"group","id":"` + refTeam + `"}}]}`, "", []string{"i2"}},
	{`{"conditions":[{"column":"owner","operator":"ne","value":"` + refAnn + `"}]}`, "", []string{"i2", "i3", "i4", "i5"}},
	{`{"conditions":[{"column":"owner","operator":"in","value":["` + refAnn + `","` + refOps + `"]}]}`, "", []string{"i1", "i3"}},
	{`{"conditions":[{"column":"owner","operator":"in","value":"` + refAnn + `,` + refDasha + `"}]}`, "", []string{"i1", "i4"}},
	{`{"conditions":[{"column":"owner","operator":"contains","value":"AN"}]}`, "", []string{"i1"}},
	{`{"conditions":[{"column":"owner","operator":"contains","value":"team"}]}`, "", []string{"i2"}},
	{`{"conditions":[{"column":"owner","operator":"contains","value":"ДАР"}]}`, "", []string{"i4"}},
	{`{"conditions":[{"column":"owner","operator":"contains","value":"%"}]}`, "", nil},
	{`{"conditions":[{"column":"owner","operator":"startsWith","value":"b"}]}`, "", []string{"i2"}},
	{`{"conditions":[{"column":"owner","operator":"startsWith","value":"smith"}]}`, "", nil},
	{`{"conditions":[{"column":"owner","operator":"isEmpty"}]}`, "", []string{"i5"}},
	{`{"conditions":[{"column":"owner","operator":"isNotEmpty"}]}`, "", []string{"i1", "i2", "i3", "i4"}},
	{`{"conditions":[{"column":"boss","operator":"eq","value":"[Я]"}]}`, "", []string{"i3"}},
	{`{"conditions":[{"column":"boss","operator":"contains","value":"boss"}]}`, "", []string{"i3"}},
	{`{"conditions":[{"column":"city","operator":"eq","value":3}]}`, "", []string{"i2", "i3"}},
	{`{"conditions":[{"column":"city","operator":"eq","value":{"itemId":1}}]}`, "", []string{"i1"}},
	{`{"conditions":[{"column":"city","operator":"in","value":[1,2]}]}`, "", []string{"i1", "i2"}},
	{`{"conditions":[{"column":"city","operator":"ne","value":"3"}]}`, "", []string{"i1", "i4", "i5"}},
	{`{"conditions":[{"column":"city","operator":"eq","value":13}]}`, "", nil},
	{`{"conditions":[{"column":"city","operator":"contains","value":"АМСТ"}]}`, "", []string{"i2"}},
	{`{"conditions":[{"column":"city","operator":"contains","value":"r"}]}`, "", []string{"i1", "i2", "i3"}},
	{`{"conditions":[{"column":"city","operator":"startsWith","value":"C"}]}`, "", []string{"i2", "i3"}},
	{`{"conditions":[{"column":"city","operator":"isEmpty"}]}`, "", []string{"i4", "i5"}},
	{`{"logic":"or","conditions":[{"column":"city","operator":"contains","value":"berl"},{"column":"owner","operator":"contains","value":"ops"}]}`, "", []string{"i1", "i3"}},
	// sorting by the display of the first entry, empty values last
	{"", "owner:asc", []string{"i1", "i2", "i3", "i4", "i5"}},
	{"", "owner:desc", []string{"i4", "i3", "i2", "i1", "i5"}},
	{"", "city:asc", []string{"i1", "i3", "i2", "i5", "i4"}},
	{"", "city:desc", []string{"i2", "i3", "i1", "i5", "i4"}},
}

func TestPersonAndLookupReferences(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		w := db.W(ctx)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := w.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		now := time.Now().UTC()
		for id, name := range map[string]string{refAnn: "Ann Smith", refBob: "Bob Brown", refDasha: "Дарья"} {
			exec("INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", id, id, id, name, now, now)
		}
		for id, name := range map[string]string{refTeam: "Team Alpha", refOps: "Ops"} {
			exec("INSERT INTO groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", id, name, now, now)
		}
		exec("UPDATE users SET display_name = ? WHERE id = ?", "The Boss", f.admin.UserID)
		principals.Changed(ctx, db, f.admin.UserID)

		cities, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Cities", Slug: "cities"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"Berlin", "Амстердам", "Cairo"} {
			if _, err := f.svc.CreateItem(ctx, f.admin, cities.ID, raws(map[string]any{"title": c})); err != nil {
				t.Fatal(err)
			}
		}
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Refs", Slug: "refs"})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range []struct {
			name, typ string
			st        string
		}{{"owner", "person", ""}, {"boss", "person", `{"allowGroups":false,"allowMultiple":false}`},
			{"city", "lookup", `{"lookupListId":"` + cities.ID + `","allowMultiple":true}`}} {
			name, typ := fd.name, fd.typ
			in := FieldInput{InternalName: &name, Title: &name, FieldType: &typ}
			if fd.st != "" {
				in.Settings = json.RawMessage(fd.st)
			}
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, in); err != nil {
				t.Fatal(err)
			}
		}
		group := func(id string) map[string]string { return map[string]string{"principalType": "group", "id": id} }
		for _, v := range []map[string]any{
			{"title": "i1", "owner": []any{refAnn}, "city": []int{1}},
			{"title": "i2", "owner": []any{refBob, group(refTeam)}, "city": []int{2, 3}},
			{"title": "i3", "owner": []any{group(refOps)}, "city": []int{3}, "boss": f.admin.UserID},
			{"title": "i4", "owner": []any{refDasha}},
			{"title": "i5"},
		} {
			if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(v)); err != nil {
				t.Fatal(err)
			}
		}
		sc := mustLoad(t, f.svc, l.ID)
		title, _ := sc.resolve("title")
		owner, _ := sc.resolve("owner")
		city, _ := sc.resolve("city")
		check := func(stage string) {
			t.Helper()
			for _, c := range refCases {
				items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: c.filter, Sort: c.sort, Limit: 100})
				if err != nil {
					t.Fatalf("%s %s %s: %v", stage, c.filter, c.sort, err)
				}
				var got []string
				for _, it := range items {
					got = append(got, fmt.Sprint(it.FieldValues[title.ID]))
				}
				want := c.want
				if c.sort == "" {
					slices.Sort(got)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: filter %s sort %s: %q, want %q", stage, c.filter, c.sort, got, want)
				}
			}
			// q without a search index compares person displays too, never
			// lookup displays (another list's text: F2)
			for q, want := range map[string][]int64{"team": {2}, "АМСТЕР": nil, "smith": {1}, "cairo": nil} {
				items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Q: q, Limit: 100})
				if err != nil {
					t.Fatalf("%s q=%s: %v", stage, q, err)
				}
				var got []int64
				for _, it := range items {
					got = append(got, it.ID)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: q=%s: %v, want %v", stage, q, got, want)
				}
			}
			it, err := f.svc.GetItem(ctx, f.admin, l.ID, "2")
			if err != nil {
				t.Fatal(err)
			}
			wantOwner := []field.Subject{{PrincipalType: "user", ID: refBob, Display: "Bob Brown"}, {PrincipalType: "group", ID: refTeam, Display: "Team Alpha"}}
			wantCity := []field.LookupValue{{ItemID: 2, Display: "Амстердам"}, {ItemID: 3, Display: "Cairo"}}
			if !reflect.DeepEqual(it.FieldValues[owner.ID], wantOwner) || !reflect.DeepEqual(it.FieldValues[city.ID], wantCity) {
				t.Errorf("%s: displays %#v %#v", stage, it.FieldValues[owner.ID], it.FieldValues[city.ID])
			}
		}
		check("new table")

		// a subject or target item that is gone: the entry stays with an empty
		// display and orders as an empty name, identically on both databases
		exec("DELETE FROM groups WHERE id = ?", refOps)
		principals.Changed(ctx, db, refOps)
		exec("UPDATE " + sc.list.Table + " SET " + city.Column() + " = '99' WHERE id = 5") // no item 99 in Cities
		for _, c := range []struct {
			sort string
			want []int64
		}{{"owner:asc", []int64{3, 1, 2, 4, 5}}, {"owner:desc", []int64{4, 2, 1, 3, 5}}, {"city:asc", []int64{5, 1, 3, 2, 4}}, {"city:desc", []int64{2, 3, 1, 5, 4}}} {
			items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Sort: c.sort, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, it := range items {
				got = append(got, it.ID)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("vanished, sort %s: %v, want %v", c.sort, got, c.want)
			}
		}
		it3, err := f.svc.GetItem(ctx, f.admin, l.ID, "3")
		if err != nil {
			t.Fatal(err)
		}
		it5, err := f.svc.GetItem(ctx, f.admin, l.ID, "5")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(it3.FieldValues[owner.ID], []field.Subject{{PrincipalType: "group", ID: refOps}}) ||
			!reflect.DeepEqual(it5.FieldValues[city.ID], []field.LookupValue{{ItemID: 99}}) {
			t.Errorf("vanished: %#v %#v", it3.FieldValues[owner.ID], it5.FieldValues[city.ID])
		}
		exec("INSERT INTO groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", refOps, "Ops", now, now)
		principals.Changed(ctx, db, refOps)
		exec("UPDATE " + sc.list.Table + " SET " + city.Column() + " = NULL WHERE id = 5")

		// stored: references only, no copy column
		var stored string
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT "+owner.Column()+" || '|' || "+city.Column()+" FROM "+sc.list.Table+" WHERE id = 2").Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != "u:"+refBob+",g:"+refTeam+"|2,3" {
			t.Errorf("stored %q", stored)
		}

		// renames show at once: a user on this instance (the cache forgets it), a target item (read each time)
		exec("UPDATE users SET display_name = ? WHERE id = ?", "Robert Brown", refBob)
		principals.Changed(ctx, db, refBob)
		if _, err := f.svc.UpdateItem(ctx, f.admin, cities.ID, "3", raws(map[string]any{"title": "Kairo"})); err != nil {
			t.Fatal(err)
		}
		it, err := f.svc.GetItem(ctx, f.admin, l.ID, "2")
		if err != nil {
			t.Fatal(err)
		}
		if s := field.Subjects(it.FieldValues[owner.ID]); len(s) != 2 || s[0].Display != "Robert Brown" {
			t.Errorf("after the rename: %#v", it.FieldValues[owner.ID])
		}
		if lv := field.Lookups(it.FieldValues[city.ID]); len(lv) != 2 || lv[1].Display != "Kairo" {
			t.Errorf("after the target's rename: %#v", it.FieldValues[city.ID])
		}
		items, _, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: `{"conditions":[{"column":"owner","operator":"contains","value":"robert"}]}`})
		if err != nil || len(items) != 1 || items[0].ID != 2 {
			t.Errorf("filter on the new name: %v %v", items, err)
		}
		exec("UPDATE users SET display_name = ? WHERE id = ?", "Bob Brown", refBob)
		principals.Changed(ctx, db, refBob)
		if _, err := f.svc.UpdateItem(ctx, f.admin, cities.ID, "3", raws(map[string]any{"title": "Cairo"})); err != nil {
			t.Fatal(err)
		}

		// the layout of older releases: JSON entries with displays and a framed lower-cased copy
		old := map[int64][2]string{
			1: {`[{"principalType":"user","id":"` + refAnn + `","display":"Ann Smith"}]`, `[{"itemId":1,"display":"Berlin"}]`},
			2: {`[{"principalType":"user","id":"` + refBob + `","display":"Bob Brown"},{"principalType":"group","id":"` + refTeam + `","display":"Team Alpha"}]`,
				`[{"itemId":2,"display":"Амстердам"},{"itemId":3,"display":"Cairo"}]`},
			3: {`[{"principalType":"group","id":"` + refOps + `","display":"Ops"}]`, `[{"itemId":3,"display":"Cairo"}]`},
			4: {`[{"principalType":"user","id":"` + refDasha + `","display":"Дарья"}]`, ""},
		}
		boss, _ := sc.resolve("boss")
		for _, fd := range []*field.Def{owner, city, boss} {
			exec("ALTER TABLE " + sc.list.Table + " ADD COLUMN " + fd.CI() + " TEXT")
			exec("CREATE INDEX " + indexName(sc.list, fd.CI()) + " ON " + sc.list.Table + " (" + fd.CI() + ")")
		}
		for n, v := range old {
			var c any
			if v[1] != "" {
				c = v[1]
			}
			exec("UPDATE "+sc.list.Table+" SET "+owner.Column()+" = ?, "+owner.CI()+" = 'x', "+city.Column()+" = ? WHERE id = ?", v[0], c, n)
		}
		exec("UPDATE "+sc.list.Table+" SET "+boss.Column()+" = ? WHERE id = 3", `[{"principalType":"user","id":"`+f.admin.UserID+`","display":"The Boss"}]`)
		migrateItemTablesNow(t, f, db, l.ID)
		check("migrated table")

		cols, err := f.svc.st.columns(ctx, sc.list.Table)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range []*field.Def{owner, city, boss} {
			if cols[fd.CI()] || !cols[fd.Column()] {
				t.Errorf("%s: copy column still there or value gone: %v", fd.InternalName, cols)
			}
		}
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT "+owner.Column()+" || '|' || "+city.Column()+" FROM "+sc.list.Table+" WHERE id = 2").Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != "u:"+refBob+",g:"+refTeam+"|2,3" {
			t.Errorf("migrated %q", stored)
		}

		// a restore of an archive of an older release: JSON entries in a table without copy columns
		exec("UPDATE "+sc.list.Table+" SET "+owner.Column()+" = ?, "+city.Column()+" = ? WHERE id = 2", old[2][0], old[2][1])
		if err := f.svc.SchemasChanged(ctx); err != nil {
			t.Fatal(err)
		}
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT "+owner.Column()+" || '|' || "+city.Column()+" FROM "+sc.list.Table+" WHERE id = 2").Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != "u:"+refBob+",g:"+refTeam+"|2,3" {
			t.Errorf("after a restore %q", stored)
		}

		// SPEC rule 2 on references: no groups, one subject
		if _, err := f.svc.UpdateField(ctx, f.admin, l.ID, owner.ID, FieldInput{Settings: json.RawMessage(`{"allowGroups":false,"allowMultiple":false}`)}); err != nil {
			t.Fatal(err)
		}
		items, _, err = f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Sort: "id:asc", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]any{}
		for _, it := range items {
			got[it.ID] = it.FieldValues[owner.ID]
		}
		want := map[int64]any{1: field.Subject{PrincipalType: "user", ID: refAnn, Display: "Ann Smith"},
			2: field.Subject{PrincipalType: "user", ID: refBob, Display: "Bob Brown"}, 3: nil,
			4: field.Subject{PrincipalType: "user", ID: refDasha, Display: "Дарья"}, 5: nil}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after tightening: %#v", got)
		}
	})
}
