package test

import (
	"strings"
	"testing"

	"coreportal/test/kit"
)

func TestListsItems(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "items")
		a := f.admin
		target := newListFixture(t, s, "lookups")
		target.create(t, a, map[string]any{"title": "Alpha"})
		f.addField(t, "body", "html_text", nil)
		f.addField(t, "amount", "number", nil, map[string]any{"isRequired": true})
		f.addField(t, "due", "date", nil)
		f.addField(t, "at", "datetime", nil)
		f.addField(t, "done", "boolean", nil)
		f.addField(t, "tags", "choice", map[string]any{"choices": []string{"red", "green", "blue"}, "allowMultiple": true})
		f.addField(t, "kind", "choice", map[string]any{"choices": []string{"bug", "task"}})
		f.addField(t, "who", "person", map[string]any{"allowGroups": false})
		f.addField(t, "ref", "lookup", map[string]any{"lookupListId": target.listID})
		f.addField(t, "site", "link", nil)
		_, bobID := s.CreateUser(t, "bob", false)
		group := a.Do(t, "POST", "/groups", map[string]any{"name": "Team"}).Expect(t, 201).Map(t)

		var first map[string]any
		t.Run("create normalises every type", func(t *testing.T) {
			first = f.create(t, a, map[string]any{
				"title": "  First  ", "body": `<p onclick="x()">Hi<script>alert(1)</script></p>`, f.fields["amount"]: "12.5",
				"due": "2026-03-04", "at": "2026-03-04T10:00:00+02:00", "done": true, "tags": []string{"red", "blue"}, "kind": "bug",
				"who": map[string]any{"principalType": "user", "id": bobID}, "ref": map[string]any{"itemId": 1},
				"site": map[string]any{"url": "https://example.com", "description": "Example"},
			})
			v := func(n string) any { return f.value(first, n) }
			if v("title") != "First" || v("amount") != 12.5 || v("due") != "2026-03-04" || v("at") != "2026-03-04T08:00:00.000Z" || v("done") != true {
				t.Fatalf("values %v", first["field_values"])
			}
			if b := v("body").(string); strings.Contains(b, "script") || strings.Contains(b, "onclick") || !strings.Contains(b, "Hi") {
				t.Fatalf("html not sanitised: %q", b)
			}
			if tags := v("tags").([]any); len(tags) != 2 || v("kind") != "bug" {
				t.Fatalf("choices %v %v", v("tags"), v("kind"))
			}
			who := v("who").([]any)[0].(map[string]any)
			if who["id"] != bobID || who["display"] != "Bob" || who["principalType"] != "user" {
				t.Fatalf("person %v", who)
			}
			ref := v("ref").(map[string]any)
			if ref["itemId"] != 1.0 || ref["display"] != "Alpha" {
				t.Fatalf("lookup %v", ref)
			}
			cb := v("created_by").(map[string]any)
			if cb["display"] != "Administrator" || v("item_number") != 1.0 {
				t.Fatalf("system values %v %v", cb, v("item_number"))
			}
			// the user block is compact: display_name only, its id is updated_by
			if u := first["updated_by_user"].(map[string]any); u["display_name"] != "Administrator" || len(u) != 1 || first["updated_by"] == "" {
				t.Fatalf("updated_by_user %v (updated_by %v)", first["updated_by_user"], first["updated_by"])
			}
			p := first["permissions"].(map[string]any)
			if p["canEdit"] != true || p["canDelete"] != true || p["canManagePermissions"] != true || first["inherits_permissions"] != true {
				t.Fatalf("permissions %v", first)
			}
		})

		t.Run("validation", func(t *testing.T) {
			r := a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x"}}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != f.fields["amount"] || !strings.Contains(r.Error.Message, "required") {
				t.Fatalf("required: %s", r.Raw)
			}
			base := map[string]any{"title": "x", "amount": 1}
			for key, bad := range map[string]any{
				"amount": "abc", "due": "04.03.2026", "at": "yesterday", "done": "yes", "tags": []string{"pink"}, "kind": []string{"bug", "task"},
				"who": map[string]any{"principalType": "group", "id": group["id"]}, "ref": 99, "site": "javascript:alert(1)",
				"nosuch": 1,
			} {
				vals := map[string]any{}
				for k, v := range base {
					vals[k] = v
				}
				vals[key] = bad
				r := a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": vals})
				if r.Status != 400 || r.Error.Code != "VALIDATION_ERROR" {
					t.Fatalf("%s=%v: %d %s", key, bad, r.Status, r.Raw)
				}
				want := f.fields[key]
				if key == "nosuch" {
					want = "nosuch"
				}
				if r.Error.Details["field"] != want {
					t.Fatalf("%s: details %v", key, r.Error.Details)
				}
			}
			a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "amount": 1,
				"who": map[string]any{"principalType": "user", "id": "0f8fad5b-d9cb-469f-a165-70867728950e"}}}).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("read by number and guid, merge patch", func(t *testing.T) {
			guid := first["guid"].(string)
			a.Do(t, "GET", f.pathf("/items/%s", guid), nil).Expect(t, 200)
			a.Do(t, "GET", f.path("/items/999"), nil).Expect(t, 404)
			a.Do(t, "GET", f.path("/items/abc"), nil).Expect(t, 404)
			r := a.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"amount": 7, "kind": nil}}).Expect(t, 200).Map(t)
			if f.value(r, "amount") != 7.0 || f.value(r, "kind") != nil || f.value(r, "title") != "First" || f.value(r, "due") != "2026-03-04" {
				t.Fatalf("merge %v", r["field_values"])
			}
			r2 := a.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"amount": nil}}).Expect(t, 400, "VALIDATION_ERROR")
			if r2.Error.Details["field"] != f.fields["amount"] {
				t.Fatalf("required after merge %s", r2.Raw)
			}
			// created_by and item_number are maintained by the server
			r = a.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"item_number": 50, "created_by": bobID}}).Expect(t, 200).Map(t)
			if f.value(r, "item_number") != 1.0 {
				t.Fatalf("item_number changed %v", f.value(r, "item_number"))
			}
		})

		t.Run("delete goes to the recycle bin and restores", func(t *testing.T) {
			it := f.create(t, a, map[string]any{"title": "Doomed", "amount": 1})
			n := it["id"].(float64)
			a.Do(t, "DELETE", f.pathf("/items/%v", n), nil).Expect(t, 200)
			a.Do(t, "GET", f.pathf("/items/%v", n), nil).Expect(t, 404)
			var entries []map[string]any
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &entries)
			if len(entries) != 1 || entries[0]["kind"] != "list_item" || entries[0]["title"] != "Doomed" {
				t.Fatalf("bin %v", entries)
			}
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			back := a.Do(t, "GET", f.pathf("/items/%v", n), nil).Expect(t, 200).Map(t)
			if back["guid"] != it["guid"] || f.value(back, "title") != "Doomed" {
				t.Fatalf("restored %v", back)
			}
		})

		t.Run("versions", func(t *testing.T) {
			r := a.Do(t, "GET", f.path("/items/1/versions"), nil).Expect(t, 200).Map(t)
			if r["versioningEnabled"] != false || len(r["versions"].([]any)) != 0 || len(r["fields"].([]any)) == 0 {
				t.Fatalf("versions off %v", r)
			}
			a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
			it := f.create(t, a, map[string]any{"title": "V1", "amount": 1})
			p := f.pathf("/items/%v", it["id"])
			a.Do(t, "PATCH", p, map[string]any{"fieldValues": map[string]any{"title": "V2", "amount": 2}}).Expect(t, 200)
			a.Do(t, "PATCH", p, map[string]any{"fieldValues": map[string]any{"done": true}}).Expect(t, 200)
			// a save that changes nothing writes nothing: no version, updated_at stays
			before := a.Do(t, "GET", p, nil).Expect(t, 200).Map(t)
			a.Do(t, "PATCH", p, map[string]any{"fieldValues": map[string]any{"title": "V2", "done": true}}).Expect(t, 200)
			after := a.Do(t, "PATCH", p, map[string]any{"fieldValues": map[string]any{}}).Expect(t, 200).Map(t)
			if after["updated_at"] != before["updated_at"] || f.value(after, "title") != "V2" {
				t.Fatalf("no-op save changed the item: %v -> %v", before, after)
			}
			r = a.Do(t, "GET", p+"/versions", nil).Expect(t, 200).Map(t)
			vs := r["versions"].([]any)
			if len(vs) != 3 {
				t.Fatalf("versions %v", vs)
			}
			v1 := vs[2].(map[string]any)
			v2 := vs[1].(map[string]any)
			if v1["versionNumber"] != 1.0 || v1["changeType"] != "created" || v1["changes"] != nil {
				t.Fatalf("v1 %v", v1)
			}
			ch := v2["changes"].(map[string]any)
			title := ch[f.fields["title"]].(map[string]any)
			amount := ch[f.fields["amount"]].(map[string]any)
			if v2["changeType"] != "updated" || len(ch) != 2 || title["old"] != "V1" || title["new"] != "V2" || title["title"] != "Title" || amount["old"] != 1.0 || amount["new"] != 2.0 {
				t.Fatalf("v2 changes %v", ch)
			}
			if v2["changedBy"].(map[string]any)["displayName"] != "Administrator" || v2["fieldValues"].(map[string]any)[f.fields["title"]] != "V2" {
				t.Fatalf("v2 %v", v2)
			}
		})

		t.Run("permission settings", func(t *testing.T) {
			r := a.Do(t, "GET", f.path("/items/1/permission-settings"), nil).Expect(t, 200).Map(t)
			if r["inheritsPermissions"] != true || r["parentLabel"] != "List items" {
				t.Fatalf("settings %v", r)
			}
			a.Do(t, "PATCH", f.path("/items/1/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			it := a.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200).Map(t)
			if it["inherits_permissions"] != false {
				t.Fatalf("flag %v", it)
			}
			a.Do(t, "PATCH", f.path("/items/1/permission-settings"), map[string]any{"inheritFromParent": true}).Expect(t, 200)
		})
	})
}
