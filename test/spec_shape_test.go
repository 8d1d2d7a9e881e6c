package test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestSpecShape: answers keep SPEC.md's shape on every database.
//   - GET /admin/dashboard answers the same keys on SQLite and PostgreSQL
//     (load.postgres.active_connections included);
//   - GET /internal/upgrade-queue answers the queued update job (none: null)
//     with the runner token and is refused without it, as the other
//     /internal paths are;
//   - body validation messages speak of properties and JSON types, never of
//     Go internals.
func TestSpecShape(t *testing.T) {
	t.Parallel()
	shapes := map[string][]string{}
	kit.ForEachBackendInTurn(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		backend := "sqlite"
		if s.DBURL != "" {
			backend = "postgres"
		}
		t.Run("dashboard", func(t *testing.T) {
			d := admin.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 200).Map(t)
			pg, _ := d["load"].(map[string]any)["postgres"].(map[string]any)
			if n, ok := pg["active_connections"].(float64); !ok || n < 0 {
				t.Fatalf("load.postgres.active_connections missing: %v", d["load"])
			}
			shapes[backend] = keyPaths(d, "")
		})
		t.Run("upgrade-queue", func(t *testing.T) { testUpgradeQueue(t, s) })
		t.Run("messages", func(t *testing.T) { testBodyMessages(t, s, admin) })
	}, "CORE_UPDATE_RUNNER_TOKEN=runner-secret")
	if len(shapes) == 2 && !slices.Equal(shapes["sqlite"], shapes["postgres"]) {
		t.Fatalf("dashboard keys differ:\nsqlite   %v\npostgres %v", shapes["sqlite"], shapes["postgres"])
	}
}

// keyPaths lists the object keys of v, nested with dots; arrays and maps
// keyed by data (pending jobs per type) are not entered.
func keyPaths(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok || prefix == "jobs.pendingByType." {
		return nil
	}
	var out []string
	for k, c := range m {
		out = append(out, prefix+k)
		out = append(out, keyPaths(c, prefix+k+".")...)
	}
	sort.Strings(out)
	return out
}

func testUpgradeQueue(t *testing.T, s *kit.Server) {
	send := func(method, path, token string) *kit.Response {
		req, _ := http.NewRequest(method, s.URL+"/api/v1"+path, nil)
		if token != "" {
			req.Header.Set("X-Core-Update-Token", token)
		}
		return s.Anon().Send(t, req)
	}
	r := send("GET", "/internal/upgrade-queue", "runner-secret").Expect(t, 200)
	if string(r.Data) != "null" {
		t.Fatalf("empty queue: %s", r.Raw)
	}
	for _, tok := range []string{"", "wrong"} {
		send("GET", "/internal/upgrade-queue", tok).Expect(t, 401, "UNAUTHORIZED")
		send("GET", "/internal/upgrade-queue/version", tok).Expect(t, 401, "UNAUTHORIZED")
	}
	// an administrator's token is not the runner's
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/internal/upgrade-queue", nil)
	s.Admin(t).Send(t, req).Expect(t, 401, "UNAUTHORIZED")
	// the sub-paths the runner uses stay
	send("GET", "/internal/upgrade-queue/version", "runner-secret").Expect(t, 200)
	send("POST", "/internal/upgrade-queue/claim", "runner-secret").Expect(t, 200)
	send("PUT", "/internal/upgrade-queue", "runner-secret").Expect(t, 404, "NOT_FOUND")
}

func testBodyMessages(t *testing.T, s *kit.Server, admin *kit.Client) {
	lf := newListFixture(t, s, "msgs")
	views := admin.Do(t, "GET", lf.path("/views"), nil).Expect(t, 200)
	var vs []map[string]any
	views.Into(t, &vs)
	view := lf.pathf("/views/%s", vs[0]["id"])
	cases := []struct{ method, path, body, want string }{
		{"PUT", "/admin/logs/settings", `{"maxRows": 1e999}`, "maxRows: number 1e999 is out of range"},
		{"PUT", "/admin/settings/backup", `{"path": "", "retentionCount": 1, "retentionDays": -1e400}`, "retentionDays: number -1e400 is out of range"},
		{"PATCH", "/nodes/" + lf.nodeID, `{"sortOrder": {"a": [1, 2e308]}}`, "sortOrder.a[1]: number 2e308 is out of range"},
		{"PATCH", "/nodes/" + lf.nodeID, `{"title": {"a": [}}`, "malformed JSON at byte"},
		{"PATCH", "/nodes/" + lf.nodeID, `{"title": "x"`, "malformed JSON"},
		{"PATCH", "/nodes/" + lf.nodeID, `{"sortOrder": "first"}`, "sortOrder"},
		{"POST", lf.path("/items"), `{"fieldValues": {"title": 1e999}}`, "fieldValues.title: number 1e999 is out of range"},
		{"PATCH", view, `{"config": {"pageSize": "many"}}`, "pageSize: expected an integer, got a string"},
		{"PATCH", view, `{"config": {"pageSize": 1e30}}`, "pageSize: number 1e+30 is out of range"},
		{"PATCH", view, `{"config": {"columns": {"a": 1}}}`, "columns: expected an array, got an object"},
		{"PATCH", view, `{"config": {"nope": 1}}`, "nope: unexpected property"},
		{"PATCH", lf.path(""), `{"formConfig": {"new": {"script": 5}}}`, "script: expected a string, got a number"},
		{"POST", lf.path("/fields"), `{"title": "N", "internalName": "n", "fieldType": "choice", "settings": {"choices": "a"}}`, "choices: expected an array, got a string"},
	}
	for _, c := range cases {
		r := admin.Do(t, c.method, c.path, c.body).Expect(t, 400, "VALIDATION_ERROR")
		if !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s %s %s: %q, want %q", c.method, c.path, c.body, r.Error.Message, c.want)
		}
		for _, bad := range []string{"Go value", "json:", "struct", "float64", "int64", "unmarshal"} {
			if strings.Contains(string(r.Raw), bad) {
				t.Errorf("%s %s %s: answer names %q: %s", c.method, c.path, c.body, bad, r.Raw)
			}
		}
	}
}
