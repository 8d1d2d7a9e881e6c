package test

import (
	"net/url"
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

func resolve(t *testing.T, c *kit.Client, path string, status int) map[string]any {
	t.Helper()
	r := c.Do(t, "GET", "/routes/resolve?path="+url.QueryEscape(path), nil).Expect(t, status)
	if status != 200 {
		return nil
	}
	return r.Map(t)
}

func TestAccessRoutes(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		a := mkNode(t, admin, "", "a")
		b := mkNode(t, admin, a, "b")
		c := mkNode(t, admin, b, "c")

		s.Anon().Do(t, "GET", "/routes/resolve?path=/", nil).Expect(t, 401, "UNAUTHORIZED")
		admin.Do(t, "GET", "/routes/resolve", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/routes/resolve?path=a/b", nil).Expect(t, 400, "VALIDATION_ERROR")

		if r := resolve(t, admin, "/", 200); r["type"] != "home" || r["path"] != "/" {
			t.Fatalf("home %v", r)
		}
		if r := resolve(t, admin, "/a/b/c", 200); r["type"] != "node" || r["nodeId"] != c || r["path"] != "/a/b/c" {
			t.Fatalf("nested node %v", r)
		}
		resolve(t, admin, "/b", 404)             // b is not a root node
		resolve(t, admin, "/a/x", 404)           // unknown slug
		resolve(t, admin, "/a/lists/tasks", 404) // no such list
		resolve(t, admin, "/a/b/c/unknown/deep/path", 404)
		if r := resolve(t, admin, "/a/b/surveys", 200); r["type"] != "surveys" || r["nodeId"] != b {
			t.Fatalf("surveys %v", r)
		}
		if r := resolve(t, admin, "/a/surveys/new", 200); r["type"] != "survey_new" || r["nodeId"] != a {
			t.Fatalf("survey_new %v", r)
		}
		if r := resolve(t, admin, "/groups", 200); r["type"] != "groups" {
			t.Fatalf("groups %v", r)
		}
		gid := uuid.NewString()
		if r := resolve(t, admin, "/groups/"+gid, 200); r["type"] != "group" || r["groupId"] != gid {
			t.Fatalf("group %v", r)
		}
		if r := resolve(t, admin, "/groups/"+gid+"/edit", 200); r["type"] != "group" || r["action"] != "edit" {
			t.Fatalf("group edit %v", r)
		}
		if r := resolve(t, admin, "/groups/new", 200); r["type"] != "group" || r["action"] != "new" {
			t.Fatalf("group new %v", r)
		}
		if r := resolve(t, admin, "/nodes/new?parentId="+b, 200); r["type"] != "node" || r["action"] != "new" || r["parentId"] != b {
			t.Fatalf("node new %v", r)
		}
		if r := resolve(t, admin, "/nodes/"+c+"/edit", 200); r["type"] != "node" || r["nodeId"] != c {
			t.Fatalf("node edit %v", r)
		}
		resolve(t, admin, "/nodes/"+uuid.NewString()+"/edit", 404)

		// invisible nodes do not resolve: they exist, so 403 (CONTRACT), unknown ones 404
		resolve(t, alice, "/a/b", 403)
		resolve(t, alice, "/a/nope", 404)
		grant(t, s, "node", b, "user", aliceID, "view")
		resolve(t, alice, "/a/b/c", 200)

		// canonical
		cr := admin.Do(t, "GET", "/routes/canonical?type=node&nodeId="+c, nil).Expect(t, 200).Map(t)
		if cr["path"] != "/a/b/c" || cr["type"] != "node" {
			t.Fatalf("canonical %v", cr)
		}
		cr = admin.Do(t, "GET", "/routes/canonical?type=surveys&nodeId="+b, nil).Expect(t, 200).Map(t)
		if cr["path"] != "/a/b/surveys" {
			t.Fatalf("canonical surveys %v", cr)
		}
		admin.Do(t, "GET", "/routes/canonical?type=node", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/routes/canonical?type=weird&nodeId="+c, nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/routes/canonical?type=list", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/routes/canonical?type=list&resourceId="+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		alice.Do(t, "GET", "/routes/canonical?type=node&nodeId="+a, nil).Expect(t, 403, "FORBIDDEN")

		// legacy hash links
		lg := admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("#/nodes/"+c), nil).Expect(t, 200).Map(t)
		if lg["path"] != "/a/b/c" {
			t.Fatalf("legacy %v", lg)
		}
		lg = admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("/#/node/"+b+"/surveys"), nil).Expect(t, 200).Map(t)
		if lg["path"] != "/a/b/surveys" {
			t.Fatalf("legacy surveys %v", lg)
		}
		lg = admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("#/a/b"), nil).Expect(t, 200).Map(t)
		if lg["nodeId"] != b {
			t.Fatalf("legacy slug path %v", lg)
		}
		if lg = admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("#/"), nil).Expect(t, 200).Map(t); lg["type"] != "home" {
			t.Fatalf("legacy home %v", lg)
		}
		admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("#/nodes/"+uuid.NewString()), nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "GET", "/routes/legacy?path="+url.QueryEscape("#/lists/"+uuid.NewString()), nil).Expect(t, 404, "NOT_FOUND")

		// a renamed node changes the canonical path
		admin.Do(t, "PATCH", "/nodes/"+b, map[string]any{"slug": "bee"}).Expect(t, 200)
		if r := resolve(t, admin, "/a/bee/c", 200); r["nodeId"] != c {
			t.Fatalf("after rename %v", r)
		}
		resolve(t, admin, "/a/b/c", 404)
	})
}

func TestAccessMenu(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		root := mkNode(t, admin, "", "portal")
		hr := mkNode(t, admin, root, "hr")
		grant(t, s, "node", root, "user", aliceID, "view")
		hidden := mkNode(t, admin, "", "hidden") // a root node alice cannot see

		base := "/nodes/" + root + "/menu"
		s.Anon().Do(t, "GET", base, nil).Expect(t, 401, "UNAUTHORIZED")
		alice.Do(t, "GET", base+"/manage", nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "POST", base+"/items", map[string]any{"title": "x"}).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "GET", "/nodes/"+hidden+"/menu", nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "GET", "/nodes/"+uuid.NewString()+"/menu", nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "GET", "/nodes/"+uuid.NewString()+"/menu", nil).Expect(t, 404, "NOT_FOUND")

		add := func(node, title, link, parent string) map[string]any {
			body := map[string]any{"title": title, "link": link}
			if parent != "" {
				body["parentItemId"] = parent
			}
			return admin.Do(t, "POST", "/nodes/"+node+"/menu/items", body).Expect(t, 201).Map(t)
		}
		home := add(root, "Home", "/portal", "")
		if home["resourceType"] != "node" || home["resourceId"] != root || home["link"] != "/portal" {
			t.Fatalf("bound link %v", home)
		}
		hrItem := add(root, "HR", "#/nodes/"+hr, "")
		if hrItem["link"] != "/portal/hr" || hrItem["resourceId"] != hr {
			t.Fatalf("hash link converted %v", hrItem)
		}
		add(root, "Hidden", "/hidden", "")
		add(root, "Vendor", "https://example.com/x", "")
		add(root, "Sub of HR", "/portal/hr", hrItem["id"].(string))

		admin.Do(t, "POST", base+"/items", map[string]any{"title": "", "link": "/portal"}).Expect(t, 400, "VALIDATION_ERROR")
		for _, bad := range []string{"javascript:alert(1)", "//evil.example/x", "/\\evil.example", "/a\\b", "http://a b", "https://", "http:///x"} {
			admin.Do(t, "POST", base+"/items", map[string]any{"title": "Bad", "link": bad}).Expect(t, 400, "VALIDATION_ERROR")
		}
		admin.Do(t, "POST", base+"/items", map[string]any{"title": "Bad", "link": "#/nodes/" + uuid.NewString()}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", base+"/items", map[string]any{"title": "Orphan", "parentItemId": uuid.NewString()}).Expect(t, 404, "NOT_FOUND")

		// alice does not see the item pointing at a node she cannot view
		var m struct {
			Settings map[string]any
			Items    []map[string]any
		}
		alice.Do(t, "GET", base, nil).Expect(t, 200).Into(t, &m)
		titles := func(items []map[string]any) []string {
			var out []string
			for _, it := range items {
				out = append(out, it["title"].(string))
			}
			return out
		}
		if got := titles(m.Items); len(got) != 3 || got[0] != "Home" || got[1] != "HR" || got[2] != "Vendor" {
			t.Fatalf("alice menu %v", got)
		}
		if kids := m.Items[1]["children"].([]any); len(kids) != 1 {
			t.Fatalf("nested %v", kids)
		}
		admin.Do(t, "GET", base, nil).Expect(t, 200).Into(t, &m)
		if len(m.Items) != 4 || m.Settings["inheritParent"] != true {
			t.Fatalf("admin menu %v", m)
		}

		// child node inherits the parent's menu, then its own items
		add(hr, "Holidays", "https://example.com/holidays", "")
		alice.Do(t, "GET", "/nodes/"+hr+"/menu", nil).Expect(t, 200).Into(t, &m)
		if got := titles(m.Items); len(got) != 4 || got[3] != "Holidays" || m.Items[0]["inherited"] != true || m.Items[3]["inherited"] != false {
			t.Fatalf("inherited menu %v", m.Items)
		}
		admin.Do(t, "PUT", "/nodes/"+hr+"/menu/settings", map[string]any{"inheritParent": false}).Expect(t, 200)
		alice.Do(t, "GET", "/nodes/"+hr+"/menu", nil).Expect(t, 200).Into(t, &m)
		if got := titles(m.Items); len(got) != 1 || m.Settings["inheritParent"] != false {
			t.Fatalf("own menu only %v", got)
		}
		alice.Do(t, "PUT", "/nodes/"+hr+"/menu/settings", map[string]any{"inheritParent": true}).Expect(t, 403, "FORBIDDEN")

		// renaming a node refreshes bound links
		admin.Do(t, "PATCH", "/nodes/"+hr, map[string]any{"slug": "people"}).Expect(t, 200)
		admin.Do(t, "GET", base, nil).Expect(t, 200).Into(t, &m)
		if m.Items[1]["link"] != "/portal/people" {
			t.Fatalf("refreshed link %v", m.Items[1])
		}

		// moves
		var mg struct {
			Items     []map[string]any
			Inherited []map[string]any
		}
		move := func(id, dir string, status int) {
			t.Helper()
			admin.Do(t, "POST", base+"/items/"+id+"/move", map[string]any{"direction": dir}).Expect(t, status)
		}
		order := func() []string {
			admin.Do(t, "GET", base+"/manage", nil).Expect(t, 200).Into(t, &mg)
			return titles(mg.Items)
		}
		homeID := home["id"].(string)
		move(homeID, "up", 400)
		move(homeID, "out", 400)
		move(homeID, "into", 400)
		move(homeID, "sideways", 400)
		move(homeID, "down", 200)
		if o := order(); o[0] != "HR" || o[1] != "Home" {
			t.Fatalf("after down %v", o)
		}
		move(homeID, "into", 200) // into HR, after "Sub of HR"
		if o := order(); len(o) != 3 || o[0] != "HR" {
			t.Fatalf("after into %v", o)
		}
		kids := mg.Items[0]["children"].([]any)
		if len(kids) != 2 || kids[1].(map[string]any)["title"] != "Home" {
			t.Fatalf("children after into %v", kids)
		}
		move(homeID, "up", 200)
		move(homeID, "out", 200)
		if o := order(); len(o) != 4 || o[1] != "Home" {
			t.Fatalf("after out %v", o)
		}
		admin.Do(t, "POST", base+"/items/"+uuid.NewString()+"/move", map[string]any{"direction": "up"}).Expect(t, 404, "NOT_FOUND")

		// update and delete (children go with their parent)
		admin.Do(t, "PATCH", base+"/items/"+homeID, map[string]any{"title": "Start", "openInNewTab": true}).Expect(t, 200)
		admin.Do(t, "PATCH", base+"/items/"+homeID, map[string]any{"link": "ftp://x"}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "DELETE", base+"/items/"+hrItem["id"].(string), nil).Expect(t, 200)
		if o := order(); len(o) != 3 || o[0] != "Start" {
			t.Fatalf("after delete %v", o)
		}
		admin.Do(t, "DELETE", base+"/items/"+hrItem["id"].(string), nil).Expect(t, 404, "NOT_FOUND")
		// an item of another node cannot be reached through this node
		admin.Do(t, "DELETE", base+"/items/"+homeID, nil).Expect(t, 200)
		admin.Do(t, "DELETE", "/nodes/"+hr+"/menu/items/"+homeID, nil).Expect(t, 404, "NOT_FOUND")
	})
}

func TestAccessRecycleBin(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		node := mkNode(t, admin, "", "bin")
		base := "/nodes/" + node + "/recycle-bin"

		s.Anon().Do(t, "GET", base, nil).Expect(t, 401, "UNAUTHORIZED")
		alice.Do(t, "GET", base, nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "GET", "/nodes/"+uuid.NewString()+"/recycle-bin", nil).Expect(t, 404, "NOT_FOUND")
		grant(t, s, "node", node, "user", aliceID, "view")
		alice.Do(t, "GET", base, nil).Expect(t, 403, "FORBIDDEN")
		r := admin.Do(t, "GET", base, nil).Expect(t, 200)
		var es []map[string]any
		r.Into(t, &es)
		if len(es) != 0 || r.Meta["total"].(float64) != 0 {
			t.Fatalf("empty bin %s", r.Raw)
		}
		admin.Do(t, "GET", base+"?limit=0", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", base+"/"+uuid.NewString()+"/restore", nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "DELETE", base+"/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "DELETE", base+"/nope", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", base+"/nope/restore", nil).Expect(t, 400, "VALIDATION_ERROR")
		grant(t, s, "node", node, "user", aliceID, "edit")
		alice.Do(t, "GET", base, nil).Expect(t, 200)
		alice.Do(t, "POST", base+"/"+uuid.NewString()+"/restore", nil).Expect(t, 403, "FORBIDDEN")
	})
}
