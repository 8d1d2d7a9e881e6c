package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestHardSessionHeadersAndScripts: #9 item 2.
func TestHardSessionHeadersAndScripts(t *testing.T) {
	t.Parallel()
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

		t.Run("X-Forwarded-Proto from an untrusted peer does not make the cookie Secure", func(t *testing.T) {
			r := loginWith(t, s, map[string]string{"X-Forwarded-Proto": "https"}, "admin", kit.AdminPassword).Expect(t, 200)
			if strings.Contains(r.Header.Get("Set-Cookie"), "Secure") {
				t.Fatalf("cookie %q", r.Header.Get("Set-Cookie"))
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
	t.Parallel()
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

// TestHardSessionSignInAndSignOut: #9 items 3 (throttling), 4 (revocation) and
// 7 (Secure cookie) on two instances sharing one database without a shared
// bus: throttle counters and revocations travel through the database.
func TestHardSessionSignInAndSignOut(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dbURL, dir := b.DatabaseURL(t), t.TempDir()
			a := kit.StartWith(t, dbURL, dir, "serve", "CORE_TRUSTED_PROXIES=127.0.0.1")
			bb := kit.StartWith(t, dbURL, dir, "serve", "CORE_TRUSTED_PROXIES=127.0.0.1", "CORE_PUBLIC_URL=https://portal.example.com")
			adm := a.Admin(t)
			_, ownerID := a.CreateUser(t, "owner", false)
			a.CreateUser(t, "sprayed", false)

			t.Run("an attacker's failures from one address do not stop the owner elsewhere", func(t *testing.T) {
				for i := 0; i < 5; i++ {
					loginFrom(t, a, "203.0.113.5", "owner", "wrong-password").Expect(t, 401, "UNAUTHORIZED")
				}
				// the other instance knows: the counters are in the database
				loginFrom(t, bb, "203.0.113.5", "owner", "wrong-password").Expect(t, 429, "RATE_LIMITED")
				loginFrom(t, bb, "203.0.113.5", "owner", "password-owner").Expect(t, 429, "RATE_LIMITED")
				loginFrom(t, a, "198.51.100.7", "owner", "password-owner").Expect(t, 200)
				loginFrom(t, bb, "198.51.100.8", "OWNER", "password-owner").Expect(t, 200)
			})

			t.Run("a spray across many addresses is slowed, not locked", func(t *testing.T) {
				for i := 0; i < 20; i++ {
					srv := a
					if i%2 == 1 {
						srv = bb
					}
					loginFrom(t, srv, fmt.Sprintf("192.0.2.%d", i+1), "sprayed", "wrong-password").Expect(t, 401, "UNAUTHORIZED")
				}
				r := loginFrom(t, bb, "192.0.2.100", "sprayed", "password-sprayed").Expect(t, 429, "RATE_LIMITED")
				wait, _ := r.Error.Details["retryAfterSeconds"].(float64)
				if wait < 1 || wait > 30 {
					t.Fatalf("retryAfterSeconds %v", r.Error.Details)
				}
				time.Sleep(time.Duration(wait) * time.Second)
				loginFrom(t, a, "192.0.2.101", "sprayed", "password-sprayed").Expect(t, 200)
			})

			t.Run("logout revokes that token on every instance", func(t *testing.T) {
				t1 := tokenOf(t, loginWith(t, a, nil, "owner", "password-owner"))
				t2 := tokenOf(t, loginWith(t, a, nil, "owner", "password-owner"))
				bearer(bb, t1).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
				bearer(a, t1).Do(t, "POST", "/auth/logout", nil).Expect(t, 200)
				bearer(a, t1).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				bearer(a, t2).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
				eventually(t, 8*time.Second, "revocation reaches the other instance", func() bool {
					return bearer(bb, t1).Do(t, "GET", "/auth/me", nil).Status == 401
				})
				bearer(bb, t2).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
				eventually(t, 5*time.Second, "the sign-out is in the audit log", func() bool {
					r := adm.Do(t, "GET", "/admin/audit?action=auth.sign_out&actor=owner", nil).Expect(t, 200)
					return r.Meta["total"].(float64) >= 1
				})
				// sign-out through the session cookie
				t3 := tokenOf(t, loginWith(t, bb, nil, "owner", "password-owner"))
				req, _ := http.NewRequest("POST", bb.URL+"/api/v1/auth/logout", nil)
				req.AddCookie(&http.Cookie{Name: "core_token", Value: t3})
				req.Header.Set("X-Requested-With", "CorePortal")
				bb.Anon().Send(t, req).Expect(t, 200)
				bearer(bb, t3).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				// after a restart the deny-list is read back from the database
				c := kit.StartWith(t, dbURL, dir, "serve")
				bearer(c, t1).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				bearer(c, t2).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			})

			t.Run("deactivation, role removal and reset end every session for good", func(t *testing.T) {
				tok := tokenOf(t, loginWith(t, a, nil, "owner", "password-owner"))
				adm.Do(t, "PATCH", "/admin/users/"+ownerID, map[string]any{"isActive": false}).Expect(t, 200)
				bearer(a, tok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				adm.Do(t, "PATCH", "/admin/users/"+ownerID, map[string]any{"isActive": true}).Expect(t, 200)
				bearer(a, tok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				eventually(t, 12*time.Second, "the other instance refuses the old token", func() bool {
					return bearer(bb, tok).Do(t, "GET", "/auth/me", nil).Status == 401
				})

				boss, bossID := a.CreateUser(t, "boss", true)
				boss.Do(t, "GET", "/admin/users", nil).Expect(t, 200)
				adm.Do(t, "PATCH", "/admin/users/"+bossID, map[string]any{"isCoreAdmin": false}).Expect(t, 200)
				boss.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				again := bearer(a, tokenOf(t, loginWith(t, a, nil, "boss", "password-boss")))
				again.Do(t, "GET", "/admin/users", nil).Expect(t, 403, "FORBIDDEN")
				// granting the role does not revoke; nothing to protect against
				adm.Do(t, "PATCH", "/admin/users/"+bossID, map[string]any{"isCoreAdmin": true}).Expect(t, 200)
				again.Do(t, "GET", "/admin/users", nil).Expect(t, 200)

				tok = tokenOf(t, loginWith(t, a, nil, "owner", "password-owner"))
				adm.Do(t, "POST", "/admin/users/"+ownerID+"/reset-password", map[string]any{"password": "a-Fresh-pass-99"}).Expect(t, 200)
				bearer(a, tok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
				bearer(a, tokenOf(t, loginWith(t, a, nil, "owner", "a-Fresh-pass-99"))).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			})

			t.Run("the cookie is Secure over https through a trusted proxy or with an https public URL", func(t *testing.T) {
				secure := func(r *kit.Response) bool {
					r.Expect(t, 200)
					return strings.Contains(r.Header.Get("Set-Cookie"), "; Secure")
				}
				if secure(loginWith(t, a, nil, "admin", kit.AdminPassword)) {
					t.Fatal("plain http answer with a Secure cookie")
				}
				if !secure(loginWith(t, a, map[string]string{"X-Forwarded-Proto": "https"}, "admin", kit.AdminPassword)) {
					t.Fatal("https through the trusted proxy: cookie not Secure")
				}
				if !secure(loginWith(t, bb, nil, "admin", kit.AdminPassword)) {
					t.Fatal("CORE_PUBLIC_URL=https: cookie not Secure")
				}
				out := bearer(bb, tokenOf(t, loginWith(t, bb, nil, "admin", kit.AdminPassword))).Do(t, "POST", "/auth/logout", nil).Expect(t, 200)
				if !strings.Contains(out.Header.Get("Set-Cookie"), "; Secure") {
					t.Fatalf("logout cookie %q", out.Header.Get("Set-Cookie"))
				}
			})
		})
	}
}

// TestHardSessionLiveStreams: #9 item 5.
func TestHardSessionLiveStreams(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "livechk")
		f.create(t, f.admin, map[string]any{"title": "watched"})
		users := map[string]string{}
		for _, login := range []string{"watch-a", "watch-b", "watch-c"} {
			_, id := userWithID(t, s, login)
			users[login] = id
			grant(t, s, "node", f.nodeID, "user", id, "view")
		}
		tok := func(login string) string {
			return tokenOf(t, loginWith(t, s, nil, login, "password-"+login))
		}
		live := f.path("/items/live?ids=1")
		touch := func() {
			f.admin.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": "secret " + time.Now().String()}}).Expect(t, 200)
		}

		t.Run("a signed-out token's stream ends", func(t *testing.T) {
			ta := tok("watch-a")
			st := openLive(t, s, ta, live)
			if st.status != 200 {
				t.Fatalf("status %d", st.status)
			}
			bearer(s, ta).Do(t, "POST", "/auth/logout", nil).Expect(t, 200)
			touch()
			st.endsWithin(t, 5*time.Second)
			if again := openLive(t, s, ta, live); again.status != 401 {
				t.Fatalf("reconnect with the revoked token: %d", again.status)
			}
		})

		t.Run("a revoked app password's or service token's stream ends", func(t *testing.T) {
			c := bearer(s, tok("watch-c"))
			app := c.Do(t, "POST", "/auth/app-passwords", map[string]any{"name": "feed", "scope": "read-only"}).Expect(t, 201).Map(t)
			st := openLive(t, s, app["password"].(string), live)
			if st.status != 200 {
				t.Fatalf("app password stream: %d", st.status)
			}
			c.Do(t, "DELETE", "/auth/app-passwords/"+app["id"].(string), nil).Expect(t, 200)
			st.endsWithin(t, 5*time.Second)

			acc := f.admin.Do(t, "POST", "/admin/service-accounts", map[string]any{"login": "feed-bot", "displayName": "Feed"}).Expect(t, 201).Map(t)
			tokens := "/admin/service-accounts/" + acc["id"].(string) + "/tokens"
			grant(t, s, "node", f.nodeID, "user", acc["id"].(string), "view")
			made := f.admin.Do(t, "POST", tokens, map[string]any{"name": "feed", "scope": "read"}).Expect(t, 201).Map(t)
			st = openLive(t, s, made["token"].(string), live)
			if st.status != 200 {
				t.Fatalf("service token stream: %d", st.status)
			}
			f.admin.Do(t, "DELETE", tokens+"/"+made["id"].(string), nil).Expect(t, 200)
			st.endsWithin(t, 5*time.Second) // the periodic re-check, nothing delivered meanwhile
		})

		t.Run("a deactivated user's stream ends", func(t *testing.T) {
			tb := tok("watch-b")
			st := openLive(t, s, tb, live)
			if st.status != 200 {
				t.Fatalf("status %d", st.status)
			}
			f.admin.Do(t, "PATCH", "/admin/users/"+users["watch-b"], map[string]any{"isActive": false}).Expect(t, 200)
			st.endsWithin(t, 5*time.Second) // the periodic re-check, nothing delivered meanwhile
			f.admin.Do(t, "PATCH", "/admin/users/"+users["watch-b"], map[string]any{"isActive": true}).Expect(t, 200)
		})

		t.Run("streams are capped per user and per instance", func(t *testing.T) {
			ta, tb, tc := tok("watch-a"), tok("watch-b"), tok("watch-c")
			a1 := openLive(t, s, ta, live)
			a2 := openLive(t, s, ta, live)
			if a1.status != 200 || a2.status != 200 {
				t.Fatalf("statuses %d %d", a1.status, a2.status)
			}
			r := bearer(s, ta).Do(t, "GET", live, nil)
			if r.Status != 429 || r.Error.Code != "RATE_LIMITED" {
				t.Fatalf("third stream of one user: %d %s", r.Status, r.Raw)
			}
			if b1 := openLive(t, s, tb, live); b1.status != 200 {
				t.Fatalf("other user's stream: %d", b1.status)
			}
			if r := bearer(s, tc).Do(t, "GET", live, nil); r.Status != 429 || r.Error.Code != "RATE_LIMITED" {
				t.Fatalf("stream past the instance cap: %d %s", r.Status, r.Raw)
			}
			a1.close()
			eventually(t, 5*time.Second, "a slot frees when a stream closes", func() bool {
				c := openLive(t, s, tc, live)
				defer c.close()
				return c.status == 200
			})
		})
	}, "CORE_LIVE_RECHECK_INTERVAL=300ms", "CORE_LIVE_MAX_STREAMS_PER_USER=2", "CORE_LIVE_MAX_STREAMS=3")
}

// TestHardSessionRecycleBinVisibility: #9 item 6.
func TestHardSessionRecycleBinVisibility(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "binvis")
		editor, editorID := userWithID(t, s, "bineditor")
		grant(t, s, "node", f.nodeID, "user", editorID, "delete")
		f.create(t, f.admin, map[string]any{"title": "open item"})
		f.create(t, f.admin, map[string]any{"title": "board minutes (isolated)"})
		f.create(t, f.admin, map[string]any{"title": "another open item"})
		f.isolate(t, 2, editorID) // item 2 has its own permissions without the editor
		editor.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 403)
		for _, n := range []string{"1", "2", "3"} {
			f.admin.Do(t, "DELETE", f.path("/items/"+n), nil).Expect(t, 200)
		}
		bin := "/nodes/" + f.nodeID + "/recycle-bin"
		titles := func(c *kit.Client, query string) ([]string, float64, []map[string]any) {
			r := c.Do(t, "GET", bin+query, nil).Expect(t, 200)
			var es []map[string]any
			r.Into(t, &es)
			out := []string{}
			for _, e := range es {
				out = append(out, e["title"].(string))
			}
			return out, r.Meta["total"].(float64), es
		}
		all, total, adminEntries := titles(f.admin, "")
		if total != 3 || len(all) != 3 {
			t.Fatalf("administrator sees %v (total %v)", all, total)
		}
		seen, total, _ := titles(editor, "")
		if total != 2 || len(seen) != 2 || strings.Contains(strings.Join(seen, "|"), "board minutes") {
			t.Fatalf("editor sees %v (total %v)", seen, total)
		}
		page2, total, _ := titles(editor, "?page=2&limit=1")
		if total != 2 || len(page2) != 1 || page2[0] == seen[0] {
			t.Fatalf("editor page 2: %v (total %v)", page2, total)
		}
		var hidden string
		for _, e := range adminEntries {
			if strings.Contains(e["title"].(string), "board minutes") {
				hidden = e["id"].(string)
			}
		}
		editor.Do(t, "POST", bin+"/"+hidden+"/restore", nil).Expect(t, 403, "FORBIDDEN")
		editor.Do(t, "DELETE", bin+"/"+hidden, nil).Expect(t, 403, "FORBIDDEN")
		f.admin.Do(t, "POST", bin+"/"+hidden+"/restore", nil).Expect(t, 200)
		f.admin.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 200)
		editor.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 403) // back with its own permissions

		t.Run("library files with their own permissions", func(t *testing.T) {
			lf := newLibFixture(t, s, "binlib")
			grant(t, s, "node", lf.nodeID, "user", editorID, "delete")
			open := lf.put(t, lf.admin, "", "open.txt", []byte("open"), 201)
			secret := lf.put(t, lf.admin, "", "salaries.xlsx", []byte("secret"), 201)
			lf.admin.Do(t, "PATCH", lf.path("/files/%d/permission-settings", num(secret)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			var recs []map[string]any
			lf.admin.Do(t, "GET", "/permissions?resourceType=file&resourceId="+secret["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
			for _, r := range recs {
				if r["principalId"] == editorID {
					lf.admin.Do(t, "DELETE", "/permissions/"+r["id"].(string), nil).Expect(t, 200)
				}
			}
			for _, fl := range []map[string]any{open, secret} {
				lf.admin.Do(t, "DELETE", lf.path("/files/%d", num(fl)), nil).Expect(t, 200)
			}
			r := editor.Do(t, "GET", "/nodes/"+lf.nodeID+"/recycle-bin", nil).Expect(t, 200)
			var es []map[string]any
			r.Into(t, &es)
			if r.Meta["total"].(float64) != 1 || len(es) != 1 || es[0]["title"] != "open.txt" {
				t.Fatalf("editor sees %s", r.Raw)
			}
			if n := lf.admin.Do(t, "GET", "/nodes/"+lf.nodeID+"/recycle-bin", nil).Expect(t, 200).Meta["total"].(float64); n != 2 {
				t.Fatalf("administrator sees %v entries", n)
			}
		})
	})
}
