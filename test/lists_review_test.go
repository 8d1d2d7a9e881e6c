package test

import (
	"strings"
	"testing"

	"coreportal/test/kit"
)

// Rules found missing by the session-2 review of the lists capability.
func TestListsReviewFields(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "rvf")
		a := f.admin

		t.Run("generated internal names are reserved and never collide", func(t *testing.T) {
			a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "E", "fieldType": "text", "internalName": "field_18"}).Expect(t, 400, "VALIDATION_ERROR")
			for i := 0; i < 3; i++ {
				m := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "G", "fieldType": "text"}).Expect(t, 201).Map(t)
				if !strings.HasPrefix(m["internal_name"].(string), "field_") {
					t.Fatalf("generated name %v", m["internal_name"])
				}
			}
		})
		t.Run("negative sortOrder", func(t *testing.T) {
			m := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "First", "fieldType": "text", "sortOrder": -5}).Expect(t, 201).Map(t)
			if m["sortOrder"] != -5.0 {
				t.Fatalf("sortOrder %v", m["sortOrder"])
			}
		})
		t.Run("the title field can be sent back unchanged", func(t *testing.T) {
			a.Do(t, "PATCH", f.path("/fields/"+f.fields["title"]), map[string]any{"title": "Title", "fieldType": "text", "isRequired": true, "sortOrder": 0, "settings": map[string]any{}}).Expect(t, 200)
			a.Do(t, "PATCH", f.path("/fields/"+f.fields["title"]), map[string]any{"settings": map[string]any{"choices": []string{"x"}}}).Expect(t, 400)
		})
		f.addField(t, "kind", "choice", map[string]any{"choices": []string{"a", "b"}})
		f.addField(t, "code", "text", nil)
		t.Run("a field named twice in one write is refused", func(t *testing.T) {
			r := a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "code": "one", f.fields["code"]: "two"}}).Expect(t, 400, "VALIDATION_ERROR")
			if !strings.Contains(string(r.Raw), "twice") {
				t.Fatalf("message %s", r.Raw)
			}
			_, meta := f.list(t, a, nil)
			if meta["total"] != 0.0 {
				t.Fatalf("refused write was stored: %v", meta["total"])
			}
		})
		t.Run("choice values are trimmed like the choices", func(t *testing.T) {
			it := f.create(t, a, map[string]any{"title": "trim", "kind": " a "})
			if f.value(it, "kind") != "a" {
				t.Fatalf("kind %v", f.value(it, "kind"))
			}
		})
		t.Run("q stops finding values of a deleted field", func(t *testing.T) {
			f.create(t, a, map[string]any{"title": "plain", "code": "zebracode"})
			if items, _ := f.list(t, a, map[string]string{"q": "zebracode"}); len(items) != 1 {
				t.Fatalf("before delete %d", len(items))
			}
			a.Do(t, "DELETE", f.path("/fields/"+f.fields["code"]), nil).Expect(t, 200)
			if items, _ := f.list(t, a, map[string]string{"q": "zebracode"}); len(items) != 0 {
				t.Fatalf("deleted field still searched: %d", len(items))
			}
			if items, _ := f.list(t, a, map[string]string{"q": "plain"}); len(items) != 1 {
				t.Fatalf("other values lost from search: %d", len(items))
			}
		})
		t.Run("versions are empty while versioning is off", func(t *testing.T) {
			a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
			it := f.create(t, a, map[string]any{"title": "v1"})
			n := it["id"].(float64)
			a.Do(t, "PATCH", f.pathf("/items/%v", n), map[string]any{"fieldValues": map[string]any{"title": "v2"}}).Expect(t, 200)
			versions := func() []any {
				return a.Do(t, "GET", f.pathf("/items/%v/versions", n), nil).Expect(t, 200).Map(t)["versions"].([]any)
			}
			if len(versions()) != 2 {
				t.Fatalf("versions on: %v", versions())
			}
			a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": false}).Expect(t, 200)
			if len(versions()) != 0 {
				t.Fatalf("versions off: %v", versions())
			}
			a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
			if len(versions()) != 2 {
				t.Fatalf("history kept: %v", versions())
			}
		})
		t.Run("a lookup value the editor cannot see can be sent back unchanged", func(t *testing.T) {
			target := newListFixture(t, s, "rvf-target")
			target.create(t, a, map[string]any{"title": "secret"})
			target.create(t, a, map[string]any{"title": "also secret"})
			target.create(t, a, map[string]any{"title": "open"})
			f.addField(t, "ref", "lookup", map[string]any{"lookupListId": target.listID})
			editor, eid := s.CreateUser(t, "edna", false)
			listGrant(t, a, "list", f.listID, eid, "edit")
			listGrant(t, a, "list", target.listID, eid, "view")
			target.isolate(t, 1, eid)
			target.isolate(t, 2, eid)
			it := f.create(t, a, map[string]any{"title": "with ref", "ref": map[string]any{"itemId": 1}})
			path := f.pathf("/items/%v", it["id"])
			editor.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"title": "renamed", "ref": map[string]any{"itemId": 1, "display": "whatever"}}}).Expect(t, 200)
			got := a.Do(t, "GET", path, nil).Expect(t, 200).Map(t)
			if ref := f.value(got, "ref").(map[string]any); ref["itemId"] != 1.0 || ref["display"] != "secret" || f.value(got, "title") != "renamed" {
				t.Fatalf("after unchanged lookup %v", got["field_values"])
			}
			editor.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"ref": map[string]any{"itemId": 2}}}).Expect(t, 400, "VALIDATION_ERROR")
			editor.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"ref": map[string]any{"itemId": 3}}}).Expect(t, 200)
		})
		t.Run("list PATCH needs edit on the node; unchanged admin flags are not a change", func(t *testing.T) {
			listEditor, leID := s.CreateUser(t, "lena", false)
			nodeEditor, neID := s.CreateUser(t, "ned", false)
			listGrant(t, a, "node", f.nodeID, leID, "view")
			listGrant(t, a, "list", f.listID, leID, "edit")
			listGrant(t, a, "node", f.nodeID, neID, "edit")
			listEditor.Do(t, "PATCH", f.path(""), map[string]any{"description": "x"}).Expect(t, 403, "FORBIDDEN")
			nodeEditor.Do(t, "PATCH", f.path(""), map[string]any{"description": "by ned", "versioningEnabled": true, "searchEnabled": true}).Expect(t, 200)
			nodeEditor.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": false}).Expect(t, 403, "FORBIDDEN")
			if got := a.Do(t, "GET", f.path(""), nil).Expect(t, 200).Map(t); got["description"] != "by ned" || got["versioning_enabled"] != true {
				t.Fatalf("list %v", got)
			}
		})
	})
}

func TestListsReviewListingViews(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "rvl")
		a := f.admin
		f.addField(t, "qty", "number", nil, map[string]any{"isRequired": true})
		f.addField(t, "kind", "choice", map[string]any{"choices": []string{"a", "b"}})
		for i, k := range []string{"a", "a", "b"} {
			f.create(t, a, map[string]any{"title": "item", "qty": i, "kind": k})
		}

		t.Run("paging and viewId bounds", func(t *testing.T) {
			a.Do(t, "GET", f.path("/items?page=9223372036854775807&limit=2"), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path("/items?page=1000001"), nil).Expect(t, 400, "VALIDATION_ERROR")
			if items, meta := f.list(t, a, map[string]string{"page": "1000000", "limit": "500"}); len(items) != 0 || meta["total"] != 3.0 {
				t.Fatalf("last page %d %v", len(items), meta)
			}
			a.Do(t, "GET", f.path("/items?viewId=not-a-uuid"), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path("/items?viewId=00000000-0000-4000-8000-000000000000"), nil).Expect(t, 404)
		})
		var grouped map[string]any
		t.Run("views: pageSize 0 refused, title optional, PATCH merges config", func(t *testing.T) {
			a.Do(t, "POST", f.path("/views"), map[string]any{"title": "zero", "config": map[string]any{"pageSize": 0}}).Expect(t, 400, "VALIDATION_ERROR")
			grouped = a.Do(t, "POST", f.path("/views"), map[string]any{"config": map[string]any{
				"groupBy": map[string]any{"column": "kind"}, "sort": []any{map[string]any{"column": "qty", "direction": "desc"}},
				"filter": map[string]any{"logic": "and", "conditions": []any{map[string]any{"column": "qty", "operator": "gte", "value": 0}}}}}).Expect(t, 201).Map(t)
			if grouped["title"] != "New view" {
				t.Fatalf("default title %v", grouped["title"])
			}
			v := a.Do(t, "PATCH", f.path("/views/"+grouped["id"].(string)), map[string]any{"config": map[string]any{"pageSize": 7}}).Expect(t, 200).Map(t)
			c := v["config"].(map[string]any)
			if c["pageSize"] != 7.0 || c["groupBy"] == nil || len(c["sort"].([]any)) != 1 || len(c["filter"].(map[string]any)["conditions"].([]any)) != 1 {
				t.Fatalf("merged config %v", c)
			}
			v = a.Do(t, "PATCH", f.path("/views/"+grouped["id"].(string)), map[string]any{"config": map[string]any{"pageSize": nil, "filter": nil}}).Expect(t, 200).Map(t)
			c = v["config"].(map[string]any)
			if c["pageSize"] != 50.0 || len(c["filter"].(map[string]any)["conditions"].([]any)) != 0 || c["groupBy"] == nil {
				t.Fatalf("reset keys %v", c)
			}
		})
		t.Run("groups are [] for a grouped view without matches, absent otherwise", func(t *testing.T) {
			_, meta := f.list(t, a, map[string]string{"viewId": grouped["id"].(string)})
			if g, ok := meta["groups"].([]any); !ok || len(g) != 2 {
				t.Fatalf("groups %v", meta["groups"])
			}
			_, meta = f.list(t, a, map[string]string{"viewId": grouped["id"].(string), "q": "no such text"})
			if g, ok := meta["groups"].([]any); !ok || len(g) != 0 {
				t.Fatalf("empty groups %#v", meta["groups"])
			}
			if _, meta = f.list(t, a, nil); meta["groups"] != nil {
				t.Fatalf("ungrouped view has groups %v", meta["groups"])
			}
		})
		t.Run("quick edit errors carry all four keys", func(t *testing.T) {
			r := a.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{
				"updates": []any{map[string]any{"id": 1, "fieldValues": map[string]any{"qty": "bad"}}},
				"creates": []any{map[string]any{"clientRowId": "c1", "fieldValues": map[string]any{"title": "no qty"}}},
			}).Expect(t, 200).Map(t)
			errs := r["errors"].([]any)
			if len(errs) != 2 {
				t.Fatalf("errors %v", errs)
			}
			for _, e := range errs {
				m := e.(map[string]any)
				for _, k := range []string{"itemId", "clientRowId", "fieldId", "message"} {
					if _, ok := m[k]; !ok {
						t.Fatalf("error without %s: %v", k, m)
					}
				}
			}
			upd, cre := errs[0].(map[string]any), errs[1].(map[string]any)
			if upd["itemId"] != 1.0 || upd["clientRowId"] != nil || upd["fieldId"] != f.fields["qty"] ||
				cre["itemId"] != nil || cre["clientRowId"] != "c1" || cre["fieldId"] != f.fields["qty"] {
				t.Fatalf("errors %v", errs)
			}
		})
	})
}
