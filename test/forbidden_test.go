package test

import (
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// TestForbiddenVersusNotFound is SPEC.md Errors 3 / CONTRACT.md: a caller
// who lacks the right on a resource that exists gets 403 FORBIDDEN, 404 only
// when it does not exist. One table of resources x (missing, hidden).
func TestForbiddenVersusNotFound(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		a := s.Admin(t)
		stranger, _ := s.CreateUser(t, "nobody", false)
		viewer, viewerID := s.CreateUser(t, "vic", false)
		f := newListFixture(t, s, "fvn")
		f.create(t, a, map[string]any{"title": "open"})
		isolated := f.create(t, a, map[string]any{"title": "isolated"})
		listGrant(t, a, "list", f.listID, viewerID, "view")
		f.isolate(t, int(isolated["id"].(float64)), viewerID)
		att := a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "a.txt", []byte("a"), nil).Expect(t, 201).Map(t)["id"].(string)
		var views []map[string]any
		a.Do(t, "GET", f.path("/views"), nil).Expect(t, 200).Into(t, &views)
		view := views[0]["id"].(string)
		page := a.Do(t, "POST", "/pages", map[string]any{"nodeId": f.nodeID, "slug": "secret", "title": "Secret"}).Expect(t, 201).Map(t)["id"].(string)
		missing := uuid.NewString()

		for _, c := range []struct {
			name            string
			method          string
			missing, hidden string
			body            any
		}{
			{"node", "GET", "/nodes/" + missing, "/nodes/" + f.nodeID, nil},
			{"node change", "PATCH", "/nodes/" + missing, "/nodes/" + f.nodeID, map[string]any{"title": "x"}},
			{"node delete", "DELETE", "/nodes/" + missing, "/nodes/" + f.nodeID, nil},
			{"menu", "GET", "/nodes/" + missing + "/menu", "/nodes/" + f.nodeID + "/menu", nil},
			{"menu editor", "GET", "/nodes/" + missing + "/menu/manage", "/nodes/" + f.nodeID + "/menu/manage", nil},
			{"recycle bin", "GET", "/nodes/" + missing + "/recycle-bin", "/nodes/" + f.nodeID + "/recycle-bin", nil},
			{"lists of a node", "GET", "/lists?nodeId=" + missing, "/lists?nodeId=" + f.nodeID, nil},
			{"list", "GET", "/lists/" + missing, f.path(""), nil},
			{"list change", "PATCH", "/lists/" + missing, f.path(""), map[string]any{"title": "x"}},
			{"list delete", "DELETE", "/lists/" + missing, f.path(""), nil},
			{"fields", "GET", "/lists/" + missing + "/fields", f.path("/fields"), nil},
			{"items", "GET", "/lists/" + missing + "/items", f.path("/items"), nil},
			{"item create", "POST", "/lists/" + missing + "/items", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x"}}},
			{"item", "GET", "/lists/" + missing + "/items/1", f.path("/items/1"), nil},
			{"item change", "PATCH", "/lists/" + missing + "/items/1", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": "x"}}},
			{"item versions", "GET", "/lists/" + missing + "/items/1/versions", f.path("/items/1/versions"), nil},
			{"attachments", "GET", "/lists/" + missing + "/items/1/attachments", f.path("/items/1/attachments"), nil},
			{"attachment download", "GET", "/attachments/" + missing + "/download", "/attachments/" + att + "/download", nil},
			{"views", "GET", "/lists/" + missing + "/views", f.path("/views"), nil},
			{"view", "GET", "/lists/" + missing + "/views/" + view, f.path("/views/" + view), nil},
			{"pages of a node", "GET", "/pages?nodeId=" + missing, "/pages?nodeId=" + f.nodeID, nil},
			{"page", "GET", "/pages/" + missing, "/pages/" + page, nil},
			{"page change", "PATCH", "/pages/" + missing, "/pages/" + page, map[string]any{"title": "x"}},
			{"page delete", "DELETE", "/pages/" + missing, "/pages/" + page, nil},
			{"page records", "GET", "/permissions?resourceType=page&resourceId=" + missing, "/permissions?resourceType=page&resourceId=" + page, nil},
			{"node records", "GET", "/permissions?resourceType=node&resourceId=" + missing, "/permissions?resourceType=node&resourceId=" + f.nodeID, nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				stranger.Do(t, c.method, c.missing, c.body).Expect(t, 404, "NOT_FOUND")
				stranger.Do(t, c.method, c.hidden, c.body).Expect(t, 403, "FORBIDDEN")
			})
		}

		// an isolated item the viewer of its list cannot see exists: 403
		t.Run("isolated item", func(t *testing.T) {
			n := f.pathf("/items/%v", isolated["id"])
			viewer.Do(t, "GET", n, nil).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "GET", n+"/attachments", nil).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "GET", f.path("/items/999"), nil).Expect(t, 404, "NOT_FOUND")
			viewer.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200)
		})
		// nothing was changed by the refused calls
		if got := a.Do(t, "GET", f.path(""), nil).Expect(t, 200).Map(t); got["title"] != "List fvn" {
			t.Fatalf("list changed: %v", got)
		}
		a.Do(t, "GET", "/pages/"+page, nil).Expect(t, 200)
		a.Do(t, "GET", "/attachments/"+att+"/download", nil)
	})
}
