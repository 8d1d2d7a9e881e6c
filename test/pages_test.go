package test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// TestPages covers issue #10 item 6 on both databases with one server per
// backend: CRUD, sanitising, rights along page -> node, recycle bin, routes.
func TestPages(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		editor, editorID := s.CreateUser(t, "edna", false)
		reader, readerID := s.CreateUser(t, "rita", false)
		outsider, outsiderID := s.CreateUser(t, "otto", false)
		root := mkNode(t, admin, "", "pagesite")
		team := mkNode(t, admin, root, "team")
		grant(t, s, "node", root, "user", editorID, "edit")
		grant(t, s, "node", root, "user", readerID, "view")
		var welcome map[string]any

		t.Run("create, read, list, change", func(t *testing.T) {
			welcome = editor.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "welcome", "title": "Welcome", "content": "<h1>Hi</h1><p>team</p>"}).Expect(t, 201).Map(t)
			if welcome["nodeId"] != team || welcome["slug"] != "welcome" || welcome["title"] != "Welcome" || welcome["content"] != "<h1>Hi</h1><p>team</p>" ||
				welcome["createdAt"] == nil || welcome["updatedAt"] == nil || welcome["createdBy"] != editorID {
				t.Fatalf("created %v", welcome)
			}
			id := welcome["id"].(string)
			editor.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "welcome", "title": "Again"}).Expect(t, 409, "CONFLICT")
			editor.Do(t, "POST", "/pages", map[string]any{"nodeId": root, "slug": "welcome", "title": "Root welcome"}).Expect(t, 201)
			editor.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "about", "title": "About"}).Expect(t, 201)
			for _, bad := range []map[string]any{
				{"nodeId": team, "slug": "Bad Slug", "title": "x"},
				{"nodeId": team, "slug": "", "title": "x"},
				{"nodeId": team, "slug": "ok", "title": "  "},
				{"nodeId": team, "slug": "ok", "title": strings.Repeat("t", 201)},
				{"nodeId": "nope", "slug": "ok", "title": "x"},
				{"nodeId": team, "slug": "ok", "title": "x", "content": 5},
				{"nodeId": team, "slug": "ok", "title": "x", "extra": true},
				{"nodeId": team, "slug": "ok", "title": "x", "content": strings.Repeat("a", 1_000_001)},
			} {
				editor.Do(t, "POST", "/pages", bad).Expect(t, 400, "VALIDATION_ERROR")
			}
			editor.Do(t, "POST", "/pages", map[string]any{"nodeId": uuid.NewString(), "slug": "ok", "title": "x"}).Expect(t, 404, "NOT_FOUND")

			got := reader.Do(t, "GET", "/pages/"+id, nil).Expect(t, 200).Map(t)
			if got["content"] != welcome["content"] || got["id"] != id {
				t.Fatalf("read %v", got)
			}
			r := reader.Do(t, "GET", "/pages?nodeId="+team, nil).Expect(t, 200)
			var list []map[string]any
			r.Into(t, &list)
			if len(list) != 2 || list[0]["title"] != "About" || list[1]["title"] != "Welcome" || r.Meta["total"] != 2.0 || r.Meta["totalPages"] != 1.0 {
				t.Fatalf("list %v %v", list, r.Meta)
			}
			r = reader.Do(t, "GET", "/pages?nodeId="+team+"&limit=1&page=2", nil).Expect(t, 200)
			r.Into(t, &list)
			if len(list) != 1 || list[0]["title"] != "Welcome" || r.Meta["totalPages"] != 2.0 {
				t.Fatalf("page 2 %v %v", list, r.Meta)
			}
			reader.Do(t, "GET", "/pages", nil).Expect(t, 400, "VALIDATION_ERROR")
			reader.Do(t, "GET", "/pages?nodeId=x", nil).Expect(t, 400, "VALIDATION_ERROR")
			reader.Do(t, "GET", "/pages/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")

			ch := editor.Do(t, "PATCH", "/pages/"+id, map[string]any{"title": "Welcome!", "content": "<p>new</p>"}).Expect(t, 200).Map(t)
			if ch["title"] != "Welcome!" || ch["content"] != "<p>new</p>" || ch["slug"] != "welcome" || ch["updatedBy"] != editorID {
				t.Fatalf("patched %v", ch)
			}
			editor.Do(t, "PATCH", "/pages/"+id, map[string]any{"slug": "about"}).Expect(t, 409, "CONFLICT")
			// nodeId is a read-only property of the page: accepted as its GET
			// returns it and ignored, so the page does not move.
			if moved := editor.Do(t, "PATCH", "/pages/"+id, map[string]any{"nodeId": root}).Expect(t, 200).Map(t); moved["nodeId"] == root {
				t.Fatalf("a page moved through a read-only property: %v", moved)
			}
			editor.Do(t, "PATCH", "/pages/"+id, map[string]any{"title": ""}).Expect(t, 400, "VALIDATION_ERROR")
			if got := reader.Do(t, "GET", "/pages/"+id, nil).Expect(t, 200).Map(t); got["title"] != "Welcome!" || got["slug"] != "welcome" {
				t.Fatalf("refused changes applied: %v", got)
			}
			editor.Do(t, "PATCH", "/pages/"+uuid.NewString(), map[string]any{"title": "x"}).Expect(t, 404, "NOT_FOUND")
		})

		t.Run("content is sanitised like html_text fields", func(t *testing.T) {
			for _, c := range []struct {
				in            string
				mustNot, must []string
			}{
				{`<script>alert(1)</script><p>kept</p>`, []string{"<script", "alert"}, []string{"<p>kept</p>"}},
				{`<img src="https://example.com/a.png" alt="a" onerror="alert(1)">`, []string{"onerror", "alert"}, []string{`<img src="https://example.com/a.png" alt="a">`}},
				{`<a href="javascript:alert(1)">x</a>`, []string{"javascript:"}, []string{"x"}},
				{`<a href="https://example.com/doc">doc</a>`, nil, []string{`href="https://example.com/doc"`, ">doc</a>"}},
				{`<p onclick="steal()" style="background:url(javascript:x)">s</p>`, []string{"onclick", "style", "javascript"}, []string{"<p>s</p>"}},
				{`<iframe src="https://evil.example"></iframe><svg onload="x()"></svg><form action="/x"><input></form>`, []string{"iframe", "onload", "<svg", "<form", "<input"}, nil},
				{`<table><tr><td>cell</td></tr></table><ul><li>i</li></ul>`, nil, []string{"<td>cell</td>", "<li>i</li>"}},
			} {
				pg := editor.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "xss-" + uuid.NewString()[:8], "title": "XSS", "content": c.in}).Expect(t, 201).Map(t)
				stored := reader.Do(t, "GET", "/pages/"+pg["id"].(string), nil).Expect(t, 200).Map(t)["content"].(string)
				patched := editor.Do(t, "PATCH", "/pages/"+pg["id"].(string), map[string]any{"content": c.in}).Expect(t, 200).Map(t)["content"].(string)
				for _, got := range []string{pg["content"].(string), stored, patched} {
					for _, bad := range c.mustNot {
						if strings.Contains(strings.ToLower(got), bad) {
							t.Errorf("%q kept %q: %q", c.in, bad, got)
						}
					}
					for _, good := range c.must {
						if !strings.Contains(got, good) {
							t.Errorf("%q lost %q: %q", c.in, good, got)
						}
					}
				}
				admin.Do(t, "DELETE", "/pages/"+pg["id"].(string), nil).Expect(t, 200)
			}
		})

		t.Run("rights along page, node, ancestors", func(t *testing.T) {
			id := welcome["id"].(string)
			// reader: view inherited from root
			reader.Do(t, "PATCH", "/pages/"+id, map[string]any{"title": "x"}).Expect(t, 403, "FORBIDDEN")
			reader.Do(t, "DELETE", "/pages/"+id, nil).Expect(t, 403, "FORBIDDEN")
			reader.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "mine", "title": "x"}).Expect(t, 403, "FORBIDDEN")
			// outsider: the page exists, so 403; a missing page is 404
			outsider.Do(t, "GET", "/pages/"+id, nil).Expect(t, 403, "FORBIDDEN")
			outsider.Do(t, "GET", "/pages?nodeId="+team, nil).Expect(t, 403, "FORBIDDEN")
			outsider.Do(t, "GET", "/pages/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
			// the editor (edit on the node, so on the page) manages the page's
			// records: otto gets view on this page only
			rec := editor.Do(t, "POST", "/permissions", map[string]any{"resourceType": "page", "resourceId": id,
				"principalType": "user", "principalId": outsiderID, "permissionLevel": "view"}).Expect(t, 200).Map(t)
			outsider.Do(t, "GET", "/pages/"+id, nil).Expect(t, 200)
			outsider.Do(t, "GET", "/pages?nodeId="+team, nil).Expect(t, 403, "FORBIDDEN")
			reader.Do(t, "GET", "/permissions?resourceType=page&resourceId="+id, nil).Expect(t, 403, "FORBIDDEN")
			var recs []map[string]any
			editor.Do(t, "GET", "/permissions?resourceType=page&resourceId="+id, nil).Expect(t, 200).Into(t, &recs)
			if len(recs) != 1 || recs[0]["id"] != rec["id"] {
				t.Fatalf("page records %v", recs)
			}
			// edit on the page lets rita change it, not delete it
			grant(t, s, "page", id, "user", readerID, "edit")
			reader.Do(t, "PATCH", "/pages/"+id, map[string]any{"content": "<p>by rita</p>"}).Expect(t, 200)
			reader.Do(t, "DELETE", "/pages/"+id, nil).Expect(t, 403, "FORBIDDEN")
			if lvl := levelOf(t, outsider, "page", id); lvl != "view" {
				t.Fatalf("otto level %v", lvl)
			}
		})

		t.Run("routes", func(t *testing.T) {
			id := welcome["id"].(string)
			r := resolve(t, reader, "/pagesite/team/pages/welcome", 200)
			if r["type"] != "page" || r["pageId"] != id || r["nodeId"] != team {
				t.Fatalf("resolve %v", r)
			}
			c := reader.Do(t, "GET", "/routes/canonical?type=page&resourceId="+id, nil).Expect(t, 200).Map(t)
			if c["path"] != "/pagesite/team/pages/welcome" {
				t.Fatalf("canonical %v", c)
			}
			resolve(t, reader, "/pagesite/team/pages/nope", 404)
		})

		t.Run("recycle bin: delete, restore, purge", func(t *testing.T) {
			id := welcome["id"].(string)
			editor.Do(t, "DELETE", "/pages/"+id, nil).Expect(t, 403, "FORBIDDEN") // edit is not enough
			grant(t, s, "node", team, "user", editorID, "delete")
			editor.Do(t, "DELETE", "/pages/"+id, nil).Expect(t, 200)
			reader.Do(t, "GET", "/pages/"+id, nil).Expect(t, 404, "NOT_FOUND")
			outsider.Do(t, "GET", "/pages/"+id, nil).Expect(t, 404, "NOT_FOUND")
			editor.Do(t, "PATCH", "/pages/"+id, map[string]any{"title": "x"}).Expect(t, 404, "NOT_FOUND")
			resolve(t, reader, "/pagesite/team/pages/welcome", 404)
			var list []map[string]any
			reader.Do(t, "GET", "/pages?nodeId="+team, nil).Expect(t, 200).Into(t, &list)
			for _, p := range list {
				if p["id"] == id {
					t.Fatal("deleted page listed")
				}
			}
			var bin []map[string]any
			admin.Do(t, "GET", "/nodes/"+team+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
			entry := ""
			for _, e := range bin {
				if e["kind"] == "page" && e["title"] == "Welcome!" {
					entry = e["id"].(string)
				}
			}
			if entry == "" {
				t.Fatalf("no bin entry: %v", bin)
			}
			// the slug is free meanwhile; restoring then clashes (409)
			taker := editor.Do(t, "POST", "/pages", map[string]any{"nodeId": team, "slug": "welcome", "title": "Taker"}).Expect(t, 201).Map(t)
			admin.Do(t, "POST", "/nodes/"+team+"/recycle-bin/"+entry+"/restore", nil).Expect(t, 409, "CONFLICT")
			editor.Do(t, "PATCH", "/pages/"+taker["id"].(string), map[string]any{"slug": "taker"}).Expect(t, 200)
			admin.Do(t, "POST", "/nodes/"+team+"/recycle-bin/"+entry+"/restore", nil).Expect(t, 200)
			got := outsider.Do(t, "GET", "/pages/"+id, nil).Expect(t, 200).Map(t) // explicit rights came back
			if got["content"] != "<p>by rita</p>" {
				t.Fatalf("restored %v", got)
			}
			// purge: the page and its rights are gone
			editor.Do(t, "DELETE", "/pages/"+id, nil).Expect(t, 200)
			admin.Do(t, "GET", "/nodes/"+team+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
			for _, e := range bin {
				if e["kind"] == "page" && e["title"] == "Welcome!" {
					entry = e["id"].(string)
				}
			}
			admin.Do(t, "DELETE", "/nodes/"+team+"/recycle-bin/"+entry, nil).Expect(t, 200)
			admin.Do(t, "GET", "/pages/"+id, nil).Expect(t, 404, "NOT_FOUND")
			admin.Do(t, "GET", "/permissions?resourceType=page&resourceId="+id, nil).Expect(t, 404, "NOT_FOUND")
		})
	})
}
