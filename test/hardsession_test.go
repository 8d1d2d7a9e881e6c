package test

import (
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestHardSessionHeadersAndScripts: #9 item 2.
func TestHardSessionHeadersAndScripts(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)

		t.Run("security headers on JSON answers, no-store when credentials travel", func(t *testing.T) {
			login := s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "admin", "password": kit.AdminPassword}).Expect(t, 200)
			me := adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			missing := adm.Do(t, "GET", "/no/such/route", nil).Expect(t, 404)
			anon := s.Anon().Do(t, "GET", "/auth/me", nil).Expect(t, 401)
			health := s.Anon().Do(t, "GET", "/health", nil)
			for name, r := range map[string]*kit.Response{"login": login, "me": me, "404": missing, "401": anon, "health": health} {
				if got := r.Header.Get("Content-Security-Policy"); got != "default-src 'none'; frame-ancestors 'none'" {
					t.Errorf("%s: CSP %q", name, got)
				}
				if r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Referrer-Policy") != "no-referrer" {
					t.Errorf("%s: headers %v", name, r.Header)
				}
			}
			for name, r := range map[string]*kit.Response{"login": login, "me": me, "404 with token": missing} {
				if r.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("%s: Cache-Control %q", name, r.Header.Get("Cache-Control"))
				}
			}
			req, _ := http.NewRequest("GET", s.URL+"/api/v1/auth/me", nil)
			req.AddCookie(&http.Cookie{Name: "core_token", Value: adm.Token})
			if cc := s.Anon().Send(t, req).Expect(t, 200).Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("cookie call: Cache-Control %q", cc)
			}
		})

		t.Run("form scripts and web parts need the administrator role", func(t *testing.T) {
			f := newListFixture(t, s, "scripts")
			editor, editorID := userWithID(t, s, "formeditor")
			grant(t, s, "node", f.nodeID, "user", editorID, "edit")
			wp := map[string]any{"instanceId": "6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10", "definitionKey": "vendor.chart", "title": "Chart",
				"properties": map[string]any{"code": "alert(1)", "size": 3}, "placement": "before"}
			patch := func(c *kit.Client, fc map[string]any) *kit.Response {
				return c.Do(t, "PATCH", "/lists/"+f.listID, map[string]any{"formConfig": fc})
			}
			// a non-admin cannot add a script or a web part
			patch(editor, map[string]any{"new": map[string]any{"script": "fetch('/api/v1/admin/users')"}}).Expect(t, 403, "FORBIDDEN")
			patch(editor, map[string]any{"view": map[string]any{"webParts": []any{wp}}}).Expect(t, 403, "FORBIDDEN")
			// the administrator can
			stored := map[string]any{"new": map[string]any{"script": "console.log('x')"}, "view": map[string]any{"webParts": []any{wp}}}
			patch(adm, stored).Expect(t, 200)
			// the editor may send it back unchanged (and change showStandardForm), with other key order and spacing
			same := map[string]any{"view": map[string]any{"showStandardForm": false, "webParts": []any{map[string]any{
				"placement": "before", "properties": map[string]any{"size": 3, "code": "alert(1)"}, "title": "Chart",
				"definitionKey": "vendor.chart", "instanceId": "6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10"}}},
				"new": map[string]any{"script": "console.log('x')"}}
			patch(editor, same).Expect(t, 200)
			editor.Do(t, "PATCH", "/lists/"+f.listID, map[string]any{"title": "Renamed by editor"}).Expect(t, 200)
			// but not change, add or remove any code
			changedProps := map[string]any{"new": map[string]any{"script": "console.log('x')"}, "view": map[string]any{"webParts": []any{map[string]any{
				"instanceId": "6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10", "definitionKey": "vendor.chart", "title": "Chart",
				"properties": map[string]any{"code": "steal()", "size": 3}, "placement": "before"}}}}
			for name, fc := range map[string]map[string]any{
				"changed script":     {"new": map[string]any{"script": "evil()"}, "view": map[string]any{"webParts": []any{wp}}},
				"changed properties": changedProps,
				"script moved":       {"edit": map[string]any{"script": "console.log('x')"}, "view": map[string]any{"webParts": []any{wp}}},
				"code removed":       {},
			} {
				if r := patch(editor, fc); r.Status != 403 || r.Error.Code != "FORBIDDEN" {
					t.Errorf("%s: %d %s", name, r.Status, r.Raw)
				}
			}
			got := adm.Do(t, "GET", "/lists/"+f.listID, nil).Expect(t, 200).Map(t)["form_config"].(map[string]any)
			if got["new"].(map[string]any)["script"] != "console.log('x')" || got["view"].(map[string]any)["showStandardForm"] != false {
				t.Fatalf("form_config %v", got)
			}
			doc := s.Anon().Do(t, "GET", "/api/v1/openapi.json", nil)
			if !strings.Contains(string(doc.Raw), "needs the administrator role") {
				t.Fatal("the API reference does not say who may set scripts")
			}
		})
	})
}

// TestHardSessionPasswordPolicy: #9 item 8.
func TestHardSessionPasswordPolicy(t *testing.T) {
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL := b.DatabaseURL(t)
			t.Run("weak SEED_ADMIN_PASSWORD refuses to start with exit code 2", func(t *testing.T) {
				out, code := runBinary(t, []string{"CORE_ADDR=" + kit.FreePort(t), "CORE_DATA_DIR=" + t.TempDir(), "DATABASE_URL=" + dbURL,
					"SEED_ADMIN_PASSWORD=Password1"}, "serve")
				if code != 2 || !strings.Contains(out, "SEED_ADMIN_PASSWORD") || !strings.Contains(out, "common") {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				out, code = runBinary(t, []string{"CORE_ADDR=" + kit.FreePort(t), "CORE_DATA_DIR=" + t.TempDir(), "DATABASE_URL=" + dbURL,
					"SEED_ADMIN_LOGIN=chief-admin", "SEED_ADMIN_PASSWORD=CHIEF-ADMIN"}, "serve")
				if code != 2 || !strings.Contains(out, "login") {
					t.Fatalf("exit %d:\n%s", code, out)
				}
			})
			s := kit.StartWith(t, dbURL, t.TempDir(), "serve")
			adm := s.Admin(t)
			_, id := userWithID(t, s, "policy")
			weak := []struct{ name, pw, msg string }{
				{"common", "Password1", "common"},
				{"common, long", "qwertyuiop", "common"},
				{"login", "POLICY-user", "login"},
				{"e-mail", "policy-user@Example.com", "e-mail"},
				{"white space", "            ", "white space"},
				{"short", "abc", "at least 8"},
			}
			for _, c := range weak {
				t.Run("create refuses "+c.name, func(t *testing.T) {
					r := adm.Do(t, "POST", "/admin/users", map[string]any{"login": "policy-user", "email": "policy-user@example.com", "password": c.pw}).Expect(t, 400, "VALIDATION_ERROR")
					if r.Error.Details["field"] != "password" || !strings.Contains(r.Error.Message, c.msg) {
						t.Fatalf("%s", r.Raw)
					}
				})
			}
			if n := adm.Do(t, "GET", "/admin/users?q=policy-user", nil).Expect(t, 200).Meta["total"].(float64); n != 0 {
				t.Fatal("a refused create left a user behind")
			}
			t.Run("reset refuses weak passwords", func(t *testing.T) {
				for _, pw := range []string{"iloveyou", "policy", "policy@example.com", "\t\t\t\t\t\t\t\t"} {
					adm.Do(t, "POST", "/admin/users/"+id+"/reset-password", map[string]any{"password": pw}).Expect(t, 400, "VALIDATION_ERROR")
				}
				s.Login(t, "policy", "password-policy") // unchanged
				adm.Do(t, "POST", "/admin/users/"+id+"/reset-password", map[string]any{"password": "a-Strong-pass-42"}).Expect(t, 200)
				s.Login(t, "policy", "a-Strong-pass-42")
			})
			t.Run("user set-password CLI refuses weak passwords", func(t *testing.T) {
				env := []string{"CORE_DATA_DIR=" + s.DataDir, "DATABASE_URL=" + s.DBURL}
				out, code := runBinary(t, env, "user", "set-password", "--login", "policy", "--password", "letmein1")
				if code == 0 || !strings.Contains(out, "common") {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				s.Login(t, "policy", "a-Strong-pass-42")
				out, code = runBinary(t, env, "user", "set-password", "--login", "policy", "--password", "other-Strong-pass-7")
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				s.Login(t, "policy", "other-Strong-pass-7")
			})
		})
	}
}
