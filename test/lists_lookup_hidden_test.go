package test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestListsLookupHiddenTargets: a reader who cannot view a lookup target
// (a list or library without view, an item or folder isolated without them)
// never sees its display, live or renamed, and cannot probe it with filters
// or sorting (attack finding F1); item numbers stay.
func TestListsLookupHiddenTargets(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		refs := newListFixture(t, s, "lkrefs")
		a := refs.admin
		secret := newListFixture(t, s, "lksecret") // another node: alice has nothing there
		for _, title := range []string{"Zeta secret", "Alpha secret"} {
			secret.create(t, a, map[string]any{"title": title})
		}
		open := newListFixture(t, s, "lkopen")
		for _, title := range []string{"open one", "open two"} {
			open.create(t, a, map[string]any{"title": title})
		}
		// Open item 2 isolated before alice gets view on Open: she never sees it
		a.Do(t, "PATCH", open.path("/items/2/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 200)
		lib := newLibFixture(t, s, "lklib")
		hid := lib.folder(t, a, nil, "Hidden")
		a.Do(t, "PATCH", lib.path("/files/%d/permission-settings", num(hid)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
		hush := lib.put(t, a, hid["guid"].(string), "hush.txt", []byte("x"), 201)
		pub := lib.put(t, a, "", "public.txt", []byte("y"), 201)

		alice, aid := s.CreateUser(t, "lkalice", false)
		listGrant(t, a, "list", refs.listID, aid, "edit")
		listGrant(t, a, "list", open.listID, aid, "view")
		grantLib(t, a, "library", lib.libID, aid, "view", nil)
		alice.Do(t, "GET", secret.path("/items"), nil).Expect(t, 403)
		alice.Do(t, "GET", open.path("/items/2"), nil).Expect(t, 403)
		alice.Do(t, "GET", lib.path("/files/%d", num(hush)), nil).Expect(t, 403)

		sref := refs.addField(t, "sref", "lookup", map[string]any{"lookupListId": secret.listID, "allowMultiple": true})
		oref := refs.addField(t, "oref", "lookup", map[string]any{"lookupListId": open.listID})
		doc := refs.addField(t, "doc", "lookup", map[string]any{"lookupLibraryId": lib.libID})
		title := refs.fields["title"]
		refs.create(t, a, map[string]any{"title": "r1", sref: []int{1}, oref: 1, doc: num(pub)})
		refs.create(t, a, map[string]any{"title": "r2", sref: []int{2}, oref: 2, doc: num(hush)})
		// renames after the references were saved
		a.Do(t, "PATCH", secret.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": "Merger with Acme"}}).Expect(t, 200)
		a.Do(t, "PATCH", open.path("/items/2"), map[string]any{"fieldValues": map[string]any{"title": "open two confidential"}}).Expect(t, 200)
		a.Do(t, "PATCH", lib.path("/files/%d", num(hush)), map[string]any{"name": "zz-acquisition-acme.txt"}).Expect(t, 200)

		display := func(c *kit.Client, item, field string) []any {
			t.Helper()
			fv := c.Do(t, "GET", refs.path("/items/"+item), nil).Expect(t, 200).Map(t)["field_values"].(map[string]any)
			var out []any
			switch v := fv[field].(type) {
			case []any:
				for _, e := range v {
					out = append(out, e.(map[string]any)["itemId"], e.(map[string]any)["display"])
				}
			case map[string]any:
				out = append(out, v["itemId"], v["display"])
			}
			return out
		}
		for _, c := range []struct {
			c           *kit.Client
			item, field string
			want        []any
		}{
			{alice, "1", sref, []any{1.0, ""}},
			{a, "1", sref, []any{1.0, "Merger with Acme"}},
			{alice, "1", oref, []any{1.0, "open one"}},
			{alice, "2", oref, []any{2.0, ""}},
			{a, "2", oref, []any{2.0, "open two confidential"}},
			{alice, "1", doc, []any{float64(num(pub)), "public.txt"}},
			{alice, "2", doc, []any{float64(num(hush)), ""}},
			{a, "2", doc, []any{float64(num(hush)), "zz-acquisition-acme.txt"}},
		} {
			if got := display(c.c, c.item, c.field); !reflect.DeepEqual(got, c.want) {
				t.Errorf("item %s field %s: %v, want %v", c.item, c.field, got, c.want)
			}
		}

		titles := func(c *kit.Client, query string) []string {
			t.Helper()
			r := c.Do(t, "GET", refs.path("/items?"+query), nil).Expect(t, 200)
			for _, hidden := range []string{"Merger", "Alpha secret", "Zeta secret", "confidential", "acquisition"} {
				if c == alice && strings.Contains(string(r.Raw), hidden) {
					t.Errorf("%s: alice's listing shows %q", query, hidden)
				}
			}
			var items []struct {
				FieldValues map[string]any `json:"field_values"`
			}
			r.Into(t, &items)
			out := []string{}
			for _, x := range items {
				out = append(out, fmt.Sprint(x.FieldValues[title]))
			}
			return out
		}
		cond := func(col, op string, v any) string {
			j, _ := json.Marshal(map[string]any{"conditions": []any{map[string]any{"column": col, "operator": op, "value": v}}})
			return "filter=" + url.QueryEscape(string(j))
		}
		for _, c := range []struct {
			c     *kit.Client
			query string
			want  []string
		}{
			{a, cond("sref", "contains", "merger"), []string{"r1"}},
			{alice, cond("sref", "contains", "merger"), []string{}},
			{alice, cond("sref", "startsWith", "alpha"), []string{}},
			{alice, cond("oref", "contains", "confidential"), []string{}},
			{a, cond("oref", "contains", "confidential"), []string{"r2"}},
			{alice, cond("doc", "contains", "acme"), []string{}},
			{a, cond("doc", "contains", "acme"), []string{"r2"}},
			{alice, cond("doc", "contains", "public"), []string{"r1"}},
			{alice, "q=merger", []string{}},
			// admin orders by the hidden titles; alice sees only empty displays
			{a, "sort=sref:asc", []string{"r2", "r1"}},
			{a, "sort=sref:desc", []string{"r1", "r2"}},
			{alice, "sort=sref:asc", []string{"r2", "r1"}},
			{alice, "sort=sref:desc", []string{"r2", "r1"}},
			{a, "sort=doc:asc", []string{"r1", "r2"}},
			{alice, "sort=doc:asc", []string{"r2", "r1"}},
		} {
			if got := titles(c.c, c.query); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		// versions recorded with the admin's displays are blanked for alice
		a.Do(t, "PATCH", refs.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
		a.Do(t, "PATCH", refs.path("/items/1"), map[string]any{"fieldValues": map[string]any{sref: []int{1, 2}}}).Expect(t, 200)
		if r := alice.Do(t, "GET", refs.path("/items/1/versions"), nil).Expect(t, 200); strings.Contains(string(r.Raw), "Merger") || strings.Contains(string(r.Raw), "Alpha secret") {
			t.Errorf("alice's versions: %s", r.Raw)
		}
		if r := a.Do(t, "GET", refs.path("/items/1/versions"), nil).Expect(t, 200); !strings.Contains(string(r.Raw), "Merger") {
			t.Errorf("admin's versions: %s", r.Raw)
		}
		// the search index holds no lookup displays (F2): neither hidden
		// titles nor visible ones find the referencing items
		for _, c := range []*kit.Client{alice, a} {
			for _, q := range []string{"secret", "zeta", "confidential", "public", "open one"} {
				hits, _ := searchHits(t, c, q)
				for _, h := range hits {
					if title := fmt.Sprint(h["title"]); title == "r1" || title == "r2" {
						t.Errorf("search %q finds %s through a lookup display: %v", q, title, h)
					}
				}
			}
		}
		// sync-state and quick-edit answers
		if r := alice.Do(t, "GET", refs.path("/items/sync-state?ids=1,2"), nil).Expect(t, 200); strings.Contains(string(r.Raw), "Merger") || strings.Contains(string(r.Raw), "acquisition") {
			t.Errorf("alice's sync-state: %s", r.Raw)
		}
	})
}
