package test

import (
	"strings"
	"testing"

	"coreportal/test/kit"
)

func TestListsViewsQuickEditTightening(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "views")
		a := f.admin
		user, uid := s.CreateUser(t, "viewer", false)
		a.Do(t, "POST", "/permissions", map[string]any{"resourceType": "list", "resourceId": f.listID, "principalType": "user", "principalId": uid, "permissionLevel": "view"}).Expect(t, 200)

		t.Run("views", func(t *testing.T) {
			var vs []map[string]any
			a.Do(t, "GET", f.path("/views"), nil).Expect(t, 200).Into(t, &vs)
			if len(vs) != 1 || vs[0]["is_default"] != true {
				t.Fatalf("default view %v", vs)
			}
			cfg := vs[0]["config"].(map[string]any)
			if cfg["pageSize"] != 50.0 || cfg["selectionMode"] != "multiple" || cfg["showActionsColumn"] != true || cfg["groupBy"] != nil ||
				len(cfg["columns"].([]any)) != 0 || cfg["sort"].([]any)[0].(map[string]any)["column"] != "__created_at" ||
				cfg["sort"].([]any)[0].(map[string]any)["direction"] != "desc" || cfg["filter"].(map[string]any)["logic"] != "and" {
				t.Fatalf("default config %v", cfg)
			}
			for _, bad := range []map[string]any{
				{"pageSize": 0.5}, {"pageSize": 501}, {"pageSize": -1}, {"columns": []string{"nope"}}, {"selectionMode": "all"},
				{"sort": []any{map[string]any{"column": "nope"}}}, {"groupBy": map[string]any{"column": "nope"}},
				{"filter": map[string]any{"conditions": []any{map[string]any{"column": "title", "operator": "bad"}}}},
				{"unknownKey": true},
			} {
				r := a.Do(t, "POST", f.path("/views"), map[string]any{"title": "x", "config": bad})
				if r.Status != 400 {
					t.Errorf("%v: %d %s", bad, r.Status, r.Raw)
				}
			}
			user.Do(t, "POST", f.path("/views"), map[string]any{"title": "x"}).Expect(t, 403, "FORBIDDEN")
			hidden := a.Do(t, "POST", f.path("/views"), map[string]any{"title": "Hidden", "config": map[string]any{"hideFromSelector": true, "columns": []string{"title"}, "pageSize": 500}}).Expect(t, 201).Map(t)
			if hidden["config"].(map[string]any)["columns"].([]any)[0] != f.fields["title"] {
				t.Fatalf("columns normalised to UUIDs: %v", hidden["config"])
			}
			a.Do(t, "GET", f.path("/views"), nil).Expect(t, 200).Into(t, &vs)
			if len(vs) != 2 {
				t.Fatalf("admin sees %d views", len(vs))
			}
			user.Do(t, "GET", f.path("/views"), nil).Expect(t, 200).Into(t, &vs)
			if len(vs) != 1 {
				t.Fatalf("non-admin sees hidden view: %v", vs)
			}
			user.Do(t, "GET", f.pathf("/views/%s", hidden["id"]), nil).Expect(t, 200)
			user.Do(t, "PATCH", f.pathf("/views/%s", hidden["id"]), map[string]any{"title": "x"}).Expect(t, 403)
			upd := a.Do(t, "PATCH", f.pathf("/views/%s", hidden["id"]), map[string]any{"title": "Main", "isDefault": true, "config": map[string]any{"pageSize": 10}}).Expect(t, 200).Map(t)
			if upd["is_default"] != true || upd["config"].(map[string]any)["pageSize"] != 10.0 {
				t.Fatalf("updated %v", upd)
			}
			_, meta := f.list(t, a, nil)
			if meta["view"].(map[string]any)["id"] != hidden["id"] || meta["limit"] != 10.0 {
				t.Fatalf("new default not used: %v", meta["view"])
			}
			a.Do(t, "DELETE", f.pathf("/views/%s", hidden["id"]), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "DELETE", f.pathf("/views/%s", vs[0]["id"]), nil).Expect(t, 200)
			a.Do(t, "GET", f.pathf("/views/%s", vs[0]["id"]), nil).Expect(t, 404)
			user.Do(t, "DELETE", f.pathf("/views/%s", hidden["id"]), nil).Expect(t, 403)
		})

		t.Run("quick edit with good and bad rows", func(t *testing.T) {
			f.addField(t, "qty", "number", nil, map[string]any{"isRequired": true})
			f.create(t, a, map[string]any{"title": "one", "qty": 1})
			f.create(t, a, map[string]any{"title": "two", "qty": 2})
			r := a.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{
				"updates": []any{
					map[string]any{"id": 1, "fieldValues": map[string]any{"qty": 10}},
					map[string]any{"id": 2, "fieldValues": map[string]any{"qty": "bad", "title": "two!"}},
					map[string]any{"id": 99, "fieldValues": map[string]any{"qty": 1}},
					map[string]any{"id": 2, "fieldValues": map[string]any{"qty": nil}},
				},
				"creates": []any{
					map[string]any{"clientRowId": "c1", "fieldValues": map[string]any{"title": "three", "qty": 3}},
					map[string]any{"clientRowId": "c2", "fieldValues": map[string]any{"title": "no qty"}},
				},
			}).Expect(t, 200).Map(t)
			upd, crt, errs := r["updated"].([]any), r["created"].([]any), r["errors"].([]any)
			if len(upd) != 1 || upd[0].(map[string]any)["id"] != 1.0 || len(crt) != 1 || crt[0].(map[string]any)["clientRowId"] != "c1" {
				t.Fatalf("saved rows %v", r)
			}
			if len(errs) != 4 {
				t.Fatalf("errors %v", errs)
			}
			if errs[0].(map[string]any)["fieldId"] != f.fields["qty"] || errs[0].(map[string]any)["itemId"] != 2.0 {
				t.Fatalf("cell error %v", errs[0])
			}
			if errs[3].(map[string]any)["clientRowId"] != "c2" || errs[3].(map[string]any)["fieldId"] != f.fields["qty"] || !strings.Contains(errs[3].(map[string]any)["message"].(string), "required") {
				t.Fatalf("create error %v", errs[3])
			}
			two := a.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 200).Map(t)
			if f.value(two, "title") != "two" || f.value(two, "qty") != 2.0 {
				t.Fatalf("bad row was partly saved: %v", two["field_values"])
			}
			if one := a.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200).Map(t); f.value(one, "qty") != 10.0 {
				t.Fatalf("good row not saved")
			}
			// rights per row: a viewer gets a row error for every row, not a 403 for the batch
			r = user.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{
				"updates": []any{map[string]any{"id": 1, "fieldValues": map[string]any{"qty": 5}}},
				"creates": []any{map[string]any{"clientRowId": "x", "fieldValues": map[string]any{"title": "t", "qty": 1}}},
			}).Expect(t, 200).Map(t)
			if len(r["errors"].([]any)) != 2 || len(r["updated"].([]any)) != 0 || len(r["created"].([]any)) != 0 {
				t.Fatalf("viewer quick edit %v", r)
			}
		})

		t.Run("tightening settings normalises stored values", func(t *testing.T) {
			f.addField(t, "colors", "choice", map[string]any{"choices": []string{"red", "green", "blue"}, "allowMultiple": true})
			f.addField(t, "people", "person", nil)
			g := a.Do(t, "POST", "/groups", map[string]any{"name": "Crew"}).Expect(t, 201).Map(t)
			_, pid := s.CreateUser(t, "pat", false)
			people := []any{map[string]any{"principalType": "group", "id": g["id"]}, map[string]any{"principalType": "user", "id": pid}, map[string]any{"principalType": "user", "id": uid}}
			a1 := f.create(t, a, map[string]any{"title": "a", "qty": 1, "colors": []string{"green", "blue"}, "people": people})
			a2 := f.create(t, a, map[string]any{"title": "b", "qty": 1, "colors": []string{"red"}})
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["colors"]), map[string]any{"settings": map[string]any{"choices": []string{"blue", "red"}}}).Expect(t, 200)
			got := a.Do(t, "GET", f.pathf("/items/%v", a1["id"]), nil).Expect(t, 200).Map(t)
			if c := f.value(got, "colors").([]any); len(c) != 1 || c[0] != "blue" {
				t.Fatalf("removed choice kept: %v", c)
			}
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["colors"]), map[string]any{"settings": map[string]any{"choices": []string{"blue"}, "allowMultiple": false}}).Expect(t, 200)
			if got := a.Do(t, "GET", f.pathf("/items/%v", a2["id"]), nil).Expect(t, 200).Map(t); f.value(got, "colors") != nil {
				t.Fatalf("value outside choices kept: %v", f.value(got, "colors"))
			}
			if got := a.Do(t, "GET", f.pathf("/items/%v", a1["id"]), nil).Expect(t, 200).Map(t); f.value(got, "colors") != "blue" {
				t.Fatalf("single choice: %v", f.value(got, "colors"))
			}
			if items := f.filter(t, a, "colors", "eq", "blue"); len(items) != 1 {
				t.Fatalf("shadow column not rewritten: %d", len(items))
			}
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["people"]), map[string]any{"settings": map[string]any{"allowGroups": false}}).Expect(t, 200)
			got = a.Do(t, "GET", f.pathf("/items/%v", a1["id"]), nil).Expect(t, 200).Map(t)
			if ps := f.value(got, "people").([]any); len(ps) != 2 || ps[0].(map[string]any)["id"] != pid {
				t.Fatalf("groups not removed: %v", ps)
			}
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["people"]), map[string]any{"settings": map[string]any{"allowMultiple": false}}).Expect(t, 200)
			got = a.Do(t, "GET", f.pathf("/items/%v", a1["id"]), nil).Expect(t, 200).Map(t)
			if p := f.value(got, "people").(map[string]any); p["id"] != pid {
				t.Fatalf("first subject not kept: %v", p)
			}
			if items, _ := f.list(t, a, map[string]string{"q": "crew"}); len(items) != 0 {
				t.Fatalf("search text still has the removed group")
			}
		})
	})
}
