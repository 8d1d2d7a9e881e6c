package test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// writeBackExclusions are GET/PUT and GET/PATCH pairs of the served API that
// the round trip leaves out, each with the reason. Every other pair must take
// back what its GET returned.
var writeBackExclusions = map[string]string{
	// none: every pair round-trips; an entry needs a reason such as "the GET
	// answers a state the write cannot take back (...)".
}

// writeBackActions completes the echoed record of a pair whose write is an
// action with a required property the GET does not return: the property is
// set to what the GET shows, so that the write changes nothing.
var writeBackActions = map[string]func(got map[string]any) map[string]any{
	// GET answers inheritsPermissions; the PATCH is the action
	// inheritFromParent (true when inheriting already deletes no record)
	"/libraries/{libraryId}/files/{fileRef}/permission-settings": func(got map[string]any) map[string]any {
		return map[string]any{"inheritFromParent": got["inheritsPermissions"]}
	},
	"/lists/{listId}/items/{itemId}/permission-settings": func(got map[string]any) map[string]any {
		return map[string]any{"inheritFromParent": got["inheritsPermissions"]}
	},
	// GET answers field_values (every field, system ones too); the PATCH
	// merges fieldValues (required): an empty merge changes nothing
	"/lists/{listId}/items/{itemId}": func(map[string]any) map[string]any {
		return map[string]any{"fieldValues": map[string]any{}}
	},
}

// writeBackVolatile are properties a write (or time) may change although the
// data sent equals what was read.
var writeBackVolatile = []string{"updatedAt", "updated_at", "stats", "runnerSeenAt", "runnerOnline"}

// writePairs lists the paths (without /api/v1) that have GET and PUT or PATCH
// in the served OpenAPI document, with the write method.
func writePairs(t *testing.T, s *kit.Server) map[string]string {
	t.Helper()
	r := s.Anon().Do(t, "GET", "/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("openapi.json: %d", r.Status)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(r.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	pairs := map[string]string{}
	for p, ops := range doc.Paths {
		if _, ok := ops["get"]; !ok {
			continue
		}
		for _, m := range []string{"put", "patch"} {
			if _, ok := ops[m]; ok {
				pairs[strings.TrimPrefix(p, "/api/v1")] = strings.ToUpper(m)
			}
		}
	}
	return pairs
}

// writeBackFixtures creates one resource of every kind a pair needs and maps
// each path template to a concrete path.
func writeBackFixtures(t *testing.T, s *kit.Server) map[string]string {
	t.Helper()
	admin := s.Admin(t)
	lf := newListFixture(t, s, "wbl")
	item := lf.create(t, admin, map[string]any{"title": "Round trip"})
	views := admin.Do(t, "GET", lf.path("/views"), nil).Expect(t, 200)
	var vs []map[string]any
	views.Into(t, &vs)
	bf := newLibFixture(t, s, "wbb")
	folder := bf.folder(t, admin, nil, "Folder")
	file := bf.put(t, admin, jsonNum(folder["id"]), "note.txt", []byte("round trip"), 201)
	page := admin.Do(t, "POST", "/pages", map[string]any{"nodeId": lf.nodeID, "slug": "wbp", "title": "Page", "content": "<p>Hi</p>"}).Expect(t, 201).Map(t)
	survey := mkSurvey(t, admin, lf.nodeID, "wbs", surveyDef(false), nil)
	group := admin.Do(t, "POST", "/groups", map[string]any{"name": "Round trip", "description": "echo"}).Expect(t, 201).Map(t)
	_, userID := s.CreateUser(t, "roundtrip", false)
	return map[string]string{
		"/admin/users/{id}":              "/admin/users/" + userID,
		"/groups/{id}":                   "/groups/" + group["id"].(string),
		"/nodes/{id}":                    "/nodes/" + lf.nodeID,
		"/pages/{id}":                    "/pages/" + page["id"].(string),
		"/surveys/{id}":                  "/surveys/" + survey["id"].(string),
		"/lists/{id}":                    lf.path(""),
		"/lists/{listId}/items/{itemId}": lf.pathf("/items/%s", jsonNum(item["id"])),
		"/lists/{listId}/items/{itemId}/permission-settings":         lf.pathf("/items/%s/permission-settings", jsonNum(item["id"])),
		"/lists/{listId}/views/{viewId}":                             lf.pathf("/views/%s", vs[0]["id"]),
		"/libraries/{id}":                                            bf.path(""),
		"/libraries/{libraryId}/files/{fileRef}":                     bf.path("/files/%s", jsonNum(file["id"])),
		"/libraries/{libraryId}/files/{fileRef}/permission-settings": bf.path("/files/%s/permission-settings", jsonNum(folder["id"])),
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestWriteBack: for every GET/PUT and GET/PATCH pair of the served API, the
// administrator reads the resource and writes the same data back: 2xx and
// nothing changed. The read-only properties are accepted and ignored (they
// never change anything), unknown ones stay refused. New pairs are covered
// as soon as they are served (a pair without a fixture fails the test).
func TestWriteBack(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		pairs := writePairs(t, s)
		if len(pairs) < 15 {
			t.Fatalf("only %d pairs found: %v", len(pairs), pairs)
		}
		concrete := writeBackFixtures(t, s)
		templates := slices.Sorted(maps.Keys(pairs))
		for _, tpl := range templates {
			method := pairs[tpl]
			if why, ok := writeBackExclusions[tpl]; ok {
				t.Logf("%s %s left out: %s", method, tpl, why)
				continue
			}
			path := tpl
			if strings.Contains(tpl, "{") {
				if path = concrete[tpl]; path == "" {
					t.Errorf("%s %s: no fixture for this pair; add one to writeBackFixtures (or an exclusion with its reason)", method, tpl)
					continue
				}
			}
			t.Run(strings.ReplaceAll(strings.Trim(tpl, "/"), "/", "_"), func(t *testing.T) {
				writeBack(t, admin, method, tpl, path)
			})
		}
		t.Run("listed", func(t *testing.T) { writeBackListed(t, s, admin) })
	})
}

// writeBackListed: records whose only GET is a listing (fields of a list or
// library, services) take back the record as listed.
func writeBackListed(t *testing.T, s *kit.Server, admin *kit.Client) {
	lf := newListFixture(t, s, "wbf")
	listField := lf.addField(t, "colour", "choice", map[string]any{"choices": []string{"red", "blue"}})
	bf := newLibFixture(t, s, "wbg")
	libField := admin.Do(t, "POST", bf.path("/fields"), map[string]any{"title": "Owner", "internalName": "owner", "fieldType": "text"}).Expect(t, 201).Map(t)["id"].(string)
	for _, c := range []struct{ listing, key, id, write string }{
		{lf.path("/fields"), "id", listField, lf.path("/fields/" + listField)},
		{bf.path("/fields"), "id", libField, bf.path("/fields/%s", libField)},
		{"/services", "key", "jobs-cleanup", "/services/jobs-cleanup"},
	} {
		find := func() map[string]any {
			var rows []map[string]any
			admin.Do(t, "GET", c.listing, nil).Expect(t, 200).Into(t, &rows)
			for _, r := range rows {
				if r[c.key] == c.id {
					return r
				}
			}
			t.Fatalf("%s: %s not listed", c.listing, c.id)
			return nil
		}
		before := find()
		if r := admin.Do(t, "PATCH", c.write, before); r.Status != 200 {
			t.Fatalf("PATCH %s with the listed record: %d %s", c.write, r.Status, r.Raw)
		}
		if diff := changed(before, find()); len(diff) > 0 {
			t.Fatalf("PATCH %s changed %v", c.write, diff)
		}
		before["noSuchProperty"] = true
		admin.Do(t, "PATCH", c.write, before).Expect(t, 400, "VALIDATION_ERROR")
	}
}

func writeBack(t *testing.T, admin *kit.Client, method, tpl, path string) {
	before := admin.Do(t, "GET", path, nil).Expect(t, 200).Map(t)
	body := maps.Clone(before)
	if f := writeBackActions[tpl]; f != nil {
		maps.Copy(body, f(before))
	}
	r := admin.Do(t, method, path, body)
	if r.Status < 200 || r.Status > 299 {
		t.Fatalf("%s %s with what GET returned: %d %s", method, path, r.Status, r.Raw)
	}
	after := admin.Do(t, "GET", path, nil).Expect(t, 200).Map(t)
	if diff := changed(before, after); len(diff) > 0 {
		t.Fatalf("%s %s changed %v:\nbefore %v\nafter  %v", method, path, diff, before, after)
	}
	// unknown properties stay refused
	bad := maps.Clone(body)
	bad["noSuchProperty"] = 1
	if r := admin.Do(t, method, path, bad).Expect(t, 400, "VALIDATION_ERROR"); !strings.Contains(r.Error.Message, "noSuchProperty") {
		t.Fatalf("unknown property: %s", r.Raw)
	}
}

// changed returns the top-level properties that differ, volatile ones left out.
func changed(before, after map[string]any) []string {
	var out []string
	for k := range before {
		if slices.Contains(writeBackVolatile, k) {
			continue
		}
		if !reflect.DeepEqual(before[k], after[k]) {
			out = append(out, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestWriteBackReadOnlyChangesNothing: read-only properties sent with other
// values (an id, the administrator flag under its GET name, the writer
// counters, the password flag) are ignored, never written.
func TestWriteBackReadOnlyChangesNothing(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		user, userID := s.CreateUser(t, "plainuser", false)
		other := adminID(t, admin)
		admin.Do(t, "PATCH", "/admin/users/"+userID, map[string]any{"id": other, "is_core_admin": true, "login": "taken",
			"auth_source": "domain", "is_active": false, "displayName": "Plain"}).Expect(t, 200)
		u := admin.Do(t, "GET", "/admin/users/"+userID, nil).Expect(t, 200).Map(t)
		if u["id"] != userID || u["is_core_admin"] != false || u["login"] != "plainuser" || u["auth_source"] != "local" ||
			u["is_active"] != true || u["display_name"] != "Plain" {
			t.Fatalf("read-only properties written: %v", u)
		}
		user.Do(t, "GET", "/admin/users", nil).Expect(t, 403, "FORBIDDEN")
		if a := admin.Do(t, "GET", "/admin/users/"+other, nil).Expect(t, 200).Map(t); a["login"] != "admin" {
			t.Fatalf("other user touched: %v", a)
		}

		node := mkNode(t, admin, "", "ro-node")
		n := admin.Do(t, "GET", "/nodes/"+node, nil).Expect(t, 200).Map(t)
		admin.Do(t, "PATCH", "/nodes/"+node, map[string]any{"id": "00000000-0000-0000-0000-000000000001", "createdAt": "2000-01-01T00:00:00Z", "title": "Renamed"}).Expect(t, 200)
		n2 := admin.Do(t, "GET", "/nodes/"+node, nil).Expect(t, 200).Map(t)
		if n2["id"] != node || n2["createdAt"] != n["createdAt"] || n2["title"] != "Renamed" {
			t.Fatalf("node: %v then %v", n, n2)
		}
		admin.Do(t, "GET", "/nodes/00000000-0000-0000-0000-000000000001", nil).Expect(t, 404)

		admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": "", "hasPassword": true, "configured": true, "source": "settings"}).Expect(t, 200)
		if m := admin.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t); m["hasPassword"] != false || m["configured"] != false {
			t.Fatalf("smtp: %v", m)
		}
		admin.Do(t, "PUT", "/admin/logs/settings", map[string]any{"maxRows": 5000,
			"stats": map[string]any{"instance": "x", "queued": 0, "capacity": 1, "accepted": 0, "dropped": 99, "written": 0, "failed": 0}}).Expect(t, 200)
		if m := admin.Do(t, "GET", "/admin/logs/settings", nil).Expect(t, 200).Map(t); m["maxRows"] != 5000.0 || m["stats"].(map[string]any)["dropped"] == 99.0 {
			t.Fatalf("log settings: %v", m)
		}
		// a read-only property must still have the type its GET gives
		b := admin.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
		b["maintenance"] = "yes"
		admin.Do(t, "PUT", "/admin/settings/backup", b).Expect(t, 400, "VALIDATION_ERROR")
		b["maintenance"] = true
		admin.Do(t, "PUT", "/admin/settings/backup", b).Expect(t, 200)
		if m := admin.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t); m["maintenance"] != false {
			t.Fatalf("backup: %v", m)
		}
		admin.Do(t, "POST", "/nodes", map[string]any{"slug": "after-backup", "title": "Still writable"}).Expect(t, 201)
	})
}
