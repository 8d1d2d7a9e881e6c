package test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"coreportal/test/kit"
)

// TestListsSecurityReview covers the findings of the lists security review:
// each subtest fails without its fix.
func TestListsSecurityReview(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "sec")
		a := f.admin
		secret := newListFixture(t, s, "sec-target")
		secretField := secret.addField(t, "code", "text", nil)
		secret.create(t, a, map[string]any{"title": "Top secret", "code": "classified-1"})
		secret.create(t, a, map[string]any{"title": "Second", "code": "classified-2"})
		bob, bid := s.CreateUser(t, "bob", false)
		listGrant(t, a, "list", f.listID, bid, "edit")

		t.Run("lookup fields need view on the target list and item", func(t *testing.T) {
			body := map[string]any{"title": "Leak", "internalName": "leak", "fieldType": "lookup",
				"settings": map[string]any{"lookupListId": secret.listID, "lookupFieldId": secretField}}
			// SPEC Errors 3: an existing list bob cannot view is 403, a missing one 404
			bob.Do(t, "POST", f.path("/fields"), body).Expect(t, 403, "FORBIDDEN")
			body["settings"] = map[string]any{"lookupListId": "0b9d3a52-3c1c-4d4a-9a55-2a7a3f0c0d11"}
			bob.Do(t, "POST", f.path("/fields"), body).Expect(t, 404, "NOT_FOUND")
			// the administrator adds the field; bob still cannot read through it
			leak := f.addField(t, "leak", "lookup", map[string]any{"lookupListId": secret.listID, "lookupFieldId": secretField})
			bob.Do(t, "PATCH", f.path("/fields/"+leak), map[string]any{"settings": map[string]any{"lookupFieldId": "title"}}).Expect(t, 403, "FORBIDDEN")
			r := bob.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "leak": 1}}).Expect(t, 400)
			if strings.Contains(string(r.Raw), "classified") {
				t.Fatalf("display leaked: %s", r.Raw)
			}
			// with view on the target list the lookup works...
			listGrant(t, a, "list", secret.listID, bid, "view")
			it := bob.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "leak": 1}}).Expect(t, 201).Map(t)
			if v := f.value(it, "leak").(map[string]any); v["display"] != "classified-1" {
				t.Fatalf("lookup value %v", v)
			}
			// ...but not for an item isolated from bob, which answers like a missing one
			a.Do(t, "PATCH", secret.path("/items/2/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			it2 := a.Do(t, "GET", secret.path("/items/2"), nil).Expect(t, 200).Map(t)
			var recs []map[string]any
			a.Do(t, "GET", "/permissions?resourceType=list_item&resourceId="+it2["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
			for _, rec := range recs {
				if rec["principalId"] == bid {
					a.Do(t, "DELETE", "/permissions/"+rec["id"].(string), nil).Expect(t, 200)
				}
			}
			r = bob.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "leak": 2}}).Expect(t, 400)
			gone := bob.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x", "leak": 3}}).Expect(t, 400)
			if strings.Replace(r.Error.Message, "2", "3", 1) != gone.Error.Message || strings.Contains(string(r.Raw), "classified") {
				t.Fatalf("hidden item %q vs missing %q", r.Error.Message, gone.Error.Message)
			}
		})

		t.Run("parallel field creation and list updates", func(t *testing.T) {
			c := newListFixture(t, s, "sec-conc")
			const n = 6
			statuses := make(chan string, 2*n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(2)
				go func() {
					defer wg.Done()
					r := a.Do(t, "POST", c.path("/fields"), map[string]any{"title": fmt.Sprintf("F%d", i), "fieldType": "text"})
					if r.Status != 201 {
						statuses <- fmt.Sprintf("field %d: %d %s", i, r.Status, r.Raw)
					}
				}()
				go func() {
					defer wg.Done()
					r := a.Do(t, "PATCH", c.path(""), map[string]any{"description": fmt.Sprintf("d%d", i)})
					if r.Status != 200 {
						statuses <- fmt.Sprintf("patch %d: %d %s", i, r.Status, r.Raw)
					}
				}()
			}
			wg.Wait()
			close(statuses)
			for m := range statuses {
				t.Error(m)
			}
			// the list keeps working: a later field and an item using every field
			a.Do(t, "PATCH", c.path(""), map[string]any{"title": "renamed"}).Expect(t, 200)
			c.addField(t, "after", "text", nil)
			var fields []map[string]any
			a.Do(t, "GET", c.path("/fields"), nil).Expect(t, 200).Into(t, &fields)
			vals := map[string]any{}
			for _, fd := range fields {
				if fd["fieldType"] == "text" || fd["field_type"] == "text" {
					vals[fd["id"].(string)] = "v"
				}
			}
			if len(fields) != 3+n+1 || len(vals) != n+2 {
				t.Fatalf("fields %d, text %d: %v", len(fields), len(vals), fields)
			}
			a.Do(t, "POST", c.path("/items"), map[string]any{"fieldValues": vals}).Expect(t, 201)
		})

		t.Run("attachments of deleted items are not downloadable", func(t *testing.T) {
			f.create(t, a, map[string]any{"title": "with file"})
			up := a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "a.txt", []byte("hello"), nil).Expect(t, 201).Map(t)
			id := up["id"].(string)
			download := func(want int) {
				t.Helper()
				if r := a.Do(t, "GET", "/attachments/"+id+"/download", nil); r.Status != want {
					t.Fatalf("download: %d, want %d: %s", r.Status, want, r.Raw)
				}
			}
			download(200)
			a.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 200)
			download(404)
			var bin []map[string]any
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+bin[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			download(200)
		})

		t.Run("in with a comma string is capped", func(t *testing.T) {
			long := strings.Repeat("a,", 600) + "a"
			j := `{"logic":"and","conditions":[{"column":"title","operator":"in","value":"` + long + `"}]}`
			a.Do(t, "GET", f.path("/items?filter="+urlq(j)), nil).Expect(t, 400)
			cfg := map[string]any{"filter": map[string]any{"logic": "and", "conditions": []any{
				map[string]any{"column": "title", "operator": "in", "value": long}}}}
			a.Do(t, "POST", f.path("/views"), map[string]any{"title": "big in", "config": cfg}).Expect(t, 400)
			if got := f.titles(f.filter(t, a, "title", "in", "with file, ,,nope")); len(got) != 1 || got[0] != "with file" {
				t.Fatalf("in string form: %v", got)
			}
		})

		t.Run("person ids are stored lower-case", func(t *testing.T) {
			f.addField(t, "owner", "person", nil)
			me := adminID(t, a)
			it := f.create(t, a, map[string]any{"title": "owned", "owner": []any{strings.ToUpper(me), me}})
			owners, _ := f.value(it, "owner").([]any)
			if len(owners) != 1 || owners[0].(map[string]any)["id"] != me {
				t.Fatalf("owner %v", f.value(it, "owner"))
			}
			for _, v := range []any{"[Я]", me, strings.ToUpper(me)} {
				if got := f.titles(f.filter(t, a, "owner", "eq", v)); len(got) != 1 || got[0] != "owned" {
					t.Fatalf("eq %v: %v", v, got)
				}
			}
		})

		t.Run("bounded sortOrder and datetime years", func(t *testing.T) {
			a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "big", "fieldType": "text", "sortOrder": 3_000_000_000}).Expect(t, 400, "VALIDATION_ERROR")
			f.addField(t, "code", "text", nil)
			a.Do(t, "PATCH", f.path("/fields/"+f.fields["code"]), map[string]any{"sortOrder": 1 << 40}).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "PATCH", f.path("/fields/"+f.fields["code"]), map[string]any{"sortOrder": -2_000_000}).Expect(t, 400, "VALIDATION_ERROR")
			f.addField(t, "when", "datetime", nil)
			for _, v := range []string{"9999-12-31T23:00:00-05:00", "0000-01-01T01:00:00+05:00"} {
				a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "t", "when": v}}).Expect(t, 400, "VALIDATION_ERROR")
			}
			f.create(t, a, map[string]any{"title": "t", "when": "9999-12-31T20:00:00-01:00"})
		})

		t.Run("item rights answer alike and edits need the list", func(t *testing.T) {
			it := f.create(t, a, map[string]any{"title": "isolated"})
			n := fmt.Sprint(it["id"])
			a.Do(t, "PATCH", f.pathf("/items/%s/permission-settings", n), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			var recs []map[string]any
			a.Do(t, "GET", "/permissions?resourceType=list_item&resourceId="+it["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
			for _, rec := range recs {
				if rec["principalId"] == bid {
					a.Do(t, "DELETE", "/permissions/"+rec["id"].(string), nil).Expect(t, 200)
				}
			}
			// SPEC Errors 3: the isolated item exists (403), item 99999 does not (404)
			bob.Do(t, "GET", f.path("/items/"+n), nil).Expect(t, 403, "FORBIDDEN")
			bob.Do(t, "GET", f.path("/items/99999"), nil).Expect(t, 404, "NOT_FOUND")
			// carl has edit on one item and nothing on its list: changes need the list too
			carl, cid := s.CreateUser(t, "carl", false)
			listGrant(t, a, "list_item", n, cid, "delete", map[string]any{"listId": f.listID})
			carl.Do(t, "GET", f.path("/items/"+n), nil).Expect(t, 200)
			carl.Do(t, "PATCH", f.path("/items/"+n), map[string]any{"fieldValues": map[string]any{"title": "y"}}).Expect(t, 403, "FORBIDDEN")
			carl.Do(t, "DELETE", f.path("/items/"+n), nil).Expect(t, 403, "FORBIDDEN")
		})
	})
}
