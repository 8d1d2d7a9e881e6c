package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/field"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestLookupDisplaysHiddenTargets: a caller who cannot view a lookup target
// (no view on the target list, or an item hidden by broken inheritance) gets
// display "" for it, in items and versions, and neither filters nor sorts by
// the lookup reach its text (attack finding F1).
func TestLookupDisplaysHiddenTargets(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		const aliceID = "0c000000-0000-4000-8000-000000000001"
		now := time.Now().UTC()
		if _, err := db.W(ctx).ExecContext(ctx, "INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
			aliceID, "alice", "alice", "Alice", now, now); err != nil {
			t.Fatal(err)
		}
		alice := &auth.Principal{UserID: aliceID, Login: "alice", DisplayName: "Alice"}
		mk := func(title, slug string, items ...string) string {
			t.Helper()
			l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: title, Slug: slug})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": it})); err != nil {
					t.Fatal(err)
				}
			}
			return l.ID
		}
		secret := mk("Secret", "secret", "Zeta secret", "Alpha secret")
		open := mk("Open", "open", "open one", "open two", "open three")
		refs := mk("Refs", "refs")
		on := true
		if _, err := f.svc.Update(ctx, f.admin, refs, ListPatch{VersioningEnabled: &on}); err != nil {
			t.Fatal(err)
		}
		for _, fd := range []struct{ name, st string }{
			{"sref", `{"lookupListId":"` + secret + `","allowMultiple":true}`},
			{"oref", `{"lookupListId":"` + open + `"}`},
		} {
			name, typ := fd.name, "lookup"
			if _, err := f.svc.CreateField(ctx, f.admin, refs, FieldInput{InternalName: &name, Title: &name, FieldType: &typ, Settings: json.RawMessage(fd.st)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, v := range []map[string]any{
			{"title": "r1", "sref": []int{1}, "oref": 1},
			{"title": "r2", "sref": []int{2}, "oref": 2},
			{"title": "r3", "oref": 3},
		} {
			if _, err := f.svc.CreateItem(ctx, f.admin, refs, raws(v)); err != nil {
				t.Fatal(err)
			}
		}
		// alice: edit on Refs, view on Open, nothing on Secret (nor the node)
		if _, err := f.svc.acl.Grant(ctx, listRef(refs), "user", aliceID, acl.Edit); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.acl.Grant(ctx, listRef(open), "user", aliceID, acl.View); err != nil {
			t.Fatal(err)
		}
		// Open item 2 isolated without alice
		if _, err := f.svc.SetItemInheritance(ctx, f.admin, open, "2", false); err != nil {
			t.Fatal(err)
		}
		it2, err := f.svc.GetItem(ctx, f.admin, open, "2")
		if err != nil {
			t.Fatal(err)
		}
		entries, err := f.svc.acl.Entries(ctx, itemRef(it2.GUID))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.PrincipalID == aliceID {
				if err := f.svc.acl.Revoke(ctx, e.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		f.svc.acl.Invalidate(ctx)
		if _, err := f.svc.GetItem(ctx, alice, open, "2"); err == nil {
			t.Fatal("alice still views Open item 2")
		}
		// renames after the references were saved
		if _, err := f.svc.UpdateItem(ctx, f.admin, secret, "1", raws(map[string]any{"title": "Merger with Acme"})); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.UpdateItem(ctx, f.admin, open, "2", raws(map[string]any{"title": "open two confidential"})); err != nil {
			t.Fatal(err)
		}
		// r1 touched after the rename: its new version is recorded by the admin
		if _, err := f.svc.UpdateItem(ctx, f.admin, refs, "1", raws(map[string]any{"sref": []int{1, 2}})); err != nil {
			t.Fatal(err)
		}

		get := func(p *auth.Principal, n string) map[string]any {
			t.Helper()
			it, err := f.svc.GetItem(ctx, p, refs, n)
			if err != nil {
				t.Fatal(err)
			}
			return it.FieldValues
		}
		sc := mustLoad(t, f.svc, refs)
		sref, _ := sc.resolve("sref")
		oref, _ := sc.resolve("oref")
		title, _ := sc.resolve("title")
		if got, want := get(alice, "1")[sref.ID], []field.LookupValue{{ItemID: 1}, {ItemID: 2}}; !reflect.DeepEqual(got, want) {
			t.Errorf("alice r1 sref = %#v, want %#v", got, want)
		}
		if got, want := get(f.admin, "1")[sref.ID], []field.LookupValue{{ItemID: 1, Display: "Merger with Acme"}, {ItemID: 2, Display: "Alpha secret"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("admin r1 sref = %#v, want %#v", got, want)
		}
		if got, want := get(alice, "1")[oref.ID], (field.LookupValue{ItemID: 1, Display: "open one"}); !reflect.DeepEqual(got, want) {
			t.Errorf("alice r1 oref = %#v, want %#v", got, want)
		}
		if got, want := get(alice, "2")[oref.ID], (field.LookupValue{ItemID: 2}); !reflect.DeepEqual(got, want) {
			t.Errorf("alice r2 oref (item hidden) = %#v, want %#v", got, want)
		}
		if got, want := get(f.admin, "2")[oref.ID], (field.LookupValue{ItemID: 2, Display: "open two confidential"}); !reflect.DeepEqual(got, want) {
			t.Errorf("admin r2 oref = %#v, want %#v", got, want)
		}

		list := func(p *auth.Principal, filter, sort string) []string {
			t.Helper()
			items, _, err := f.svc.ListItems(ctx, p, refs, ListParams{Filter: filter, Sort: sort, Limit: 100})
			if err != nil {
				t.Fatalf("%s %s: %v", filter, sort, err)
			}
			out := []string{}
			for _, it := range items {
				out = append(out, fmt.Sprint(it.FieldValues[title.ID]))
				if p == alice {
					for _, id := range []string{sref.ID, oref.ID} {
						for _, l := range field.Lookups(it.FieldValues[id]) {
							if l.Display != "" && l.Display != "open one" && l.Display != "open three" {
								t.Errorf("alice's listing shows a hidden display %q", l.Display)
							}
						}
					}
				}
			}
			return out
		}
		cond := func(col, op, v string) string {
			return `{"conditions":[{"column":"` + col + `","operator":"` + op + `","value":"` + v + `"}]}`
		}
		for _, c := range []struct {
			p            *auth.Principal
			filter, sort string
			want         []string
		}{
			{f.admin, cond("sref", "contains", "merger"), "", []string{"r1"}},
			{alice, cond("sref", "contains", "merger"), "", []string{}},
			{alice, cond("sref", "contains", "secret"), "", []string{}},
			{alice, cond("sref", "startsWith", "alpha"), "", []string{}},
			{f.admin, cond("oref", "contains", "confidential"), "", []string{"r2"}},
			{alice, cond("oref", "contains", "confidential"), "", []string{}},
			{alice, cond("oref", "contains", "open"), "", []string{"r3", "r1"}},
			{alice, cond("sref", "eq", "2"), "", []string{"r2", "r1"}}, // item numbers are no secret
			// admin orders by the titles; for alice every Secret target is an
			// empty display (ties: newest first) and the hidden Open item sorts as ""
			{f.admin, "", "sref:asc", []string{"r2", "r1", "r3"}},
			{f.admin, "", "sref:desc", []string{"r1", "r2", "r3"}},
			{alice, "", "sref:asc", []string{"r2", "r1", "r3"}},
			{alice, "", "sref:desc", []string{"r2", "r1", "r3"}},
			{f.admin, "", "oref:asc", []string{"r1", "r3", "r2"}},
			{alice, "", "oref:asc", []string{"r2", "r1", "r3"}},
			{alice, "", "oref:desc", []string{"r3", "r1", "r2"}},
		} {
			if got := list(c.p, c.filter, c.sort); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s filter %s sort %s: %q, want %q", c.p.Login, c.filter, c.sort, got, c.want)
			}
		}

		// versions: recorded with the admin's displays, blanked for alice
		h, err := f.svc.ItemVersions(ctx, alice, refs, "1")
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Versions) < 2 {
			t.Fatalf("versions: %d", len(h.Versions))
		}
		j, _ := json.Marshal(h)
		for _, hidden := range []string{"Merger", "Alpha secret", "Zeta secret"} {
			if containsFold(string(j), hidden) {
				t.Errorf("alice's versions show %q: %s", hidden, j)
			}
		}
		h, err = f.svc.ItemVersions(ctx, f.admin, refs, "1")
		if err != nil {
			t.Fatal(err)
		}
		if j, _ := json.Marshal(h); !containsFold(string(j), "Merger with Acme") {
			t.Errorf("admin's versions lost the display: %s", j)
		}
	})
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// TestLookupAllowMultipleNarrowed: a lookup field tightened from
// allowMultiple true to false keeps the first entry of every stored value
// (SPEC Lists rule 2, as person and choice fields), so filters act on what
// is shown and widening again brings nothing back (attack finding F3).
func TestLookupAllowMultipleNarrowed(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		target, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Targets", Slug: "targets"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"seven", "eight", "nine"} {
			if _, err := f.svc.CreateItem(ctx, f.admin, target.ID, raws(map[string]any{"title": c})); err != nil {
				t.Fatal(err)
			}
		}
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Refs", Slug: "refs"})
		if err != nil {
			t.Fatal(err)
		}
		name, typ := "ref", "lookup"
		fd, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ,
			Settings: json.RawMessage(`{"lookupListId":"` + target.ID + `","allowMultiple":true}`)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []map[string]any{{"title": "a", "ref": []int{1, 2, 3}}, {"title": "b", "ref": []int{2}}, {"title": "c"}} {
			if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(v)); err != nil {
				t.Fatal(err)
			}
		}
		setMulti := func(multi bool) {
			t.Helper()
			st := fmt.Sprintf(`{"lookupListId":%q,"allowMultiple":%v}`, target.ID, multi)
			if _, err := f.svc.UpdateField(ctx, f.admin, l.ID, fd.ID, FieldInput{Settings: json.RawMessage(st)}); err != nil {
				t.Fatal(err)
			}
		}
		setMulti(false)
		count := func(filter string) int {
			t.Helper()
			_, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: filter, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return meta.Total
		}
		cond := func(op, v string) string {
			return `{"conditions":[{"column":"ref","operator":"` + op + `","value":` + v + `}]}`
		}
		for _, c := range []struct {
			filter string
			want   int
		}{
			{cond("eq", "1"), 1}, {cond("eq", "2"), 1}, {cond("eq", "3"), 0},
			{cond("in", "[3]"), 0}, {cond("contains", `"nine"`), 0}, {cond("contains", `"eight"`), 1},
		} {
			if got := count(c.filter); got != c.want {
				t.Errorf("after allowMultiple=false: %s: %d, want %d", c.filter, got, c.want)
			}
		}
		it, err := f.svc.GetItem(ctx, f.admin, l.ID, "1")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := it.FieldValues[fd.ID], (field.LookupValue{ItemID: 1, Display: "seven"}); !reflect.DeepEqual(got, want) {
			t.Errorf("single value %#v, want %#v", got, want)
		}
		setMulti(true)
		it, err = f.svc.GetItem(ctx, f.admin, l.ID, "1")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := it.FieldValues[fd.ID], []field.LookupValue{{ItemID: 1, Display: "seven"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("widened again: %#v, want %#v", got, want)
		}
	})
}

// TestItemDocLeavesOutLookups: the search text of an item carries person
// names but no lookup displays (attack finding F2).
func TestItemDocLeavesOutLookups(t *testing.T) {
	title := &field.Def{ID: "t", InternalName: sysTitle, Type: field.Text, Col: 1}
	who := &field.Def{ID: "p", InternalName: "who", Type: field.Person, Col: 2}
	ref := &field.Def{ID: "l", InternalName: "ref", Type: field.Lookup, Col: 3}
	note := &field.Def{ID: "n", InternalName: "note", Type: field.Text, Col: 4}
	sc := newSchema(&List{ID: "L", NodeID: "N", Slug: "s"}, []*field.Def{title, who, ref, note})
	it := &Item{GUID: "g", Number: 1, Values: map[string]any{
		"t": "Item one", "p": field.Subject{PrincipalType: "user", ID: "u", Display: "Ann Smith"},
		"l": []field.LookupValue{{ItemID: 5, Display: "Secret merger"}}, "n": "plain note"}}
	doc := itemDoc(sc, sc.fields, it)
	if doc.Title != "Item one" || !strings.Contains(doc.Body, "Ann Smith") || !strings.Contains(doc.Body, "plain note") {
		t.Errorf("doc %+v", doc)
	}
	if strings.Contains(doc.Body, "merger") {
		t.Errorf("the lookup display is in the search text: %q", doc.Body)
	}
}
