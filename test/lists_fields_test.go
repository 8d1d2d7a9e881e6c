package test

import (
	"testing"

	"coreportal/test/kit"
)

func TestListsFieldsAndSettings(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "fields")
		a := f.admin
		other := newListFixture(t, s, "target")

		t.Run("system fields", func(t *testing.T) {
			l := a.Do(t, "GET", f.path(""), nil).Expect(t, 200).Map(t)
			got := map[string]map[string]any{}
			for _, x := range l["fields"].([]any) {
				m := x.(map[string]any)
				got[m["internal_name"].(string)] = m
			}
			if got["title"]["fieldType"] != "text" || got["title"]["is_required"] != true {
				t.Fatalf("title %v", got["title"])
			}
			cb := got["created_by"]
			st := cb["settings"].(map[string]any)
			if cb["fieldType"] != "person" || st["allowGroups"] != false || st["allowMultiple"] != false || st["allowUsers"] != true {
				t.Fatalf("created_by %v", cb)
			}
			if got["item_number"]["fieldType"] != "number" {
				t.Fatalf("item_number %v", got["item_number"])
			}
			if l["form_config"] == nil || l["versioning_enabled"] != false || l["search_enabled"] != true {
				t.Fatalf("list %v", l)
			}
		})

		t.Run("all eleven types", func(t *testing.T) {
			for typ, st := range map[string]map[string]any{
				"text": nil, "multiline_text": nil, "html_text": nil, "number": nil, "date": nil, "datetime": nil,
				"boolean": nil, "link": nil, "choice": {"choices": []string{"A", "B"}},
				"lookup": {"lookupListId": other.listID}, "person": nil,
			} {
				f.addField(t, "f_"+typ, typ, st)
			}
			fs := a.Do(t, "GET", f.path("/fields"), nil).Expect(t, 200)
			var list []map[string]any
			fs.Into(t, &list)
			if len(list) != 14 {
				t.Fatalf("fields: %d", len(list))
			}
			for _, x := range list {
				if x["internal_name"] == "f_person" {
					st := x["settings"].(map[string]any)
					if st["allowUsers"] != true || st["allowGroups"] != true || st["allowMultiple"] != true {
						t.Fatalf("person defaults %v", st)
					}
				}
				if x["internal_name"] == "f_choice" && x["settings"].(map[string]any)["allowMultiple"] != false {
					t.Fatalf("choice defaults %v", x["settings"])
				}
			}
		})

		t.Run("a lookup keeps its target", func(t *testing.T) {
			third := newListFixture(t, s, "elsewhere")
			id := f.fields["f_lookup"]
			r := a.Do(t, "PATCH", f.path("/fields/"+id), map[string]any{"settings": map[string]any{"lookupListId": third.listID}}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "settings" {
				t.Fatalf("details %v", r.Error.Details)
			}
			got := a.Do(t, "PATCH", f.path("/fields/"+id), map[string]any{"settings": map[string]any{"lookupListId": other.listID, "allowMultiple": true}}).Expect(t, 200).Map(t)
			if st := got["settings"].(map[string]any); st["lookupListId"] != other.listID || st["allowMultiple"] != true {
				t.Fatalf("settings after patches %v", st)
			}
		})

		t.Run("invalid definitions", func(t *testing.T) {
			bad := []map[string]any{
				{"title": "x", "fieldType": "nope"},
				{"title": "", "fieldType": "text"},
				{"title": "x", "fieldType": "choice"},
				{"title": "x", "fieldType": "lookup", "settings": map[string]any{}},
				{"title": "x", "fieldType": "lookup", "settings": map[string]any{"lookupListId": other.listID, "lookupLibraryId": other.listID}},
				{"title": "x", "fieldType": "person", "settings": map[string]any{"allowUsers": false, "allowGroups": false}},
				{"title": "x", "fieldType": "text", "settings": map[string]any{"bogus": 1}},
				{"title": "x", "fieldType": "text", "internalName": "Bad Name"},
			}
			for _, b := range bad {
				a.Do(t, "POST", f.path("/fields"), b).Expect(t, 400, "VALIDATION_ERROR")
			}
			a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "dup", "fieldType": "text", "internalName": "f_text"}).Expect(t, 409)
		})

		t.Run("system field rules", func(t *testing.T) {
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["title"]), map[string]any{"title": "Name"}).Expect(t, 400, "VALIDATION_ERROR")
			r := a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["title"]), map[string]any{"isRequired": false}).Expect(t, 200).Map(t)
			if r["is_required"] != false {
				t.Fatalf("title required %v", r)
			}
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["title"]), map[string]any{"isRequired": true}).Expect(t, 200)
			for _, n := range []string{"created_by", "item_number"} {
				a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields[n]), map[string]any{"isRequired": true}).Expect(t, 400, "VALIDATION_ERROR")
				a.Do(t, "DELETE", f.pathf("/fields/%s", f.fields[n]), nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			a.Do(t, "DELETE", f.pathf("/fields/%s", f.fields["title"]), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "PATCH", f.pathf("/fields/%s", f.fields["f_text"]), map[string]any{"fieldType": "number"}).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("delete field drops values and view references", func(t *testing.T) {
			id := f.addField(t, "temp", "number", nil)
			f.create(t, a, map[string]any{"title": "t", "temp": 3})
			v := a.Do(t, "POST", f.path("/views"), map[string]any{"title": "By temp", "config": map[string]any{
				"columns": []string{"temp", "title"}, "sort": []any{map[string]any{"column": "temp", "direction": "desc"}}}}).Expect(t, 201).Map(t)
			a.Do(t, "DELETE", f.pathf("/fields/%s", id), nil).Expect(t, 200)
			got := a.Do(t, "GET", f.pathf("/views/%s", v["id"]), nil).Expect(t, 200).Map(t)
			cfg := got["config"].(map[string]any)
			if len(cfg["columns"].([]any)) != 1 || len(cfg["sort"].([]any)) != 0 {
				t.Fatalf("view still refers to the field: %v", cfg)
			}
			f.list(t, a, map[string]string{"viewId": v["id"].(string)})
		})

		t.Run("form config and admin-only flags", func(t *testing.T) {
			ok := map[string]any{"new": map[string]any{"script": "console.log(1)", "webParts": []any{
				map[string]any{"instanceId": "0f8fad5b-d9cb-469f-a165-70867728950e", "definitionKey": "core.banner", "placement": "before", "properties": map[string]any{"x": 1}}}}}
			r := a.Do(t, "PATCH", f.path(""), map[string]any{"formConfig": ok}).Expect(t, 200).Map(t)
			fc := r["form_config"].(map[string]any)["new"].(map[string]any)
			if fc["showStandardForm"] != true {
				t.Fatalf("form_config %v", fc)
			}
			long := make([]byte, 65537)
			for i := range long {
				long[i] = 'a'
			}
			for _, bad := range []map[string]any{
				{"other": map[string]any{}},
				{"new": map[string]any{"script": string(long)}},
				{"edit": map[string]any{"webParts": []any{map[string]any{"instanceId": "x", "definitionKey": "k"}}}},
				{"edit": map[string]any{"webParts": []any{map[string]any{"instanceId": "0f8fad5b-d9cb-469f-a165-70867728950e", "definitionKey": ""}}}},
				{"view": map[string]any{"webParts": []any{map[string]any{"instanceId": "0f8fad5b-d9cb-469f-a165-70867728950e", "definitionKey": "k", "placement": "middle"}}}},
			} {
				a.Do(t, "PATCH", f.path(""), map[string]any{"formConfig": bad}).Expect(t, 400, "VALIDATION_ERROR")
			}
			editor, uid := s.CreateUser(t, "fieldeditor", false)
			a.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": f.nodeID, "principalType": "user", "principalId": uid, "permissionLevel": "edit"}).Expect(t, 200)
			editor.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 403, "FORBIDDEN")
			editor.Do(t, "PATCH", f.path(""), map[string]any{"searchEnabled": false}).Expect(t, 403, "FORBIDDEN")
			editor.Do(t, "PATCH", f.path(""), map[string]any{"description": "ok"}).Expect(t, 200)
			r = a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true, "searchEnabled": false}).Expect(t, 200).Map(t)
			if r["versioning_enabled"] != true || r["search_enabled"] != false {
				t.Fatalf("flags %v", r)
			}
		})
	})
}
