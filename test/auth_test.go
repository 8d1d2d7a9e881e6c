package test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"coreportal/test/kit"
)

func TestAuthentication(t *testing.T) {
	// Not parallel, one backend at a time: 24 correct sign-ins at once wait
	// up to 5 s for the pair's slots (see the sign-in's description), which
	// a machine busy hashing other tests' passwords can exceed.
	kit.ForEachBackendInTurn(t, func(t *testing.T, s *kit.Server) {
		anon := s.Anon()

		t.Run("login returns token, expiry, card and cookie", func(t *testing.T) {
			r := anon.Do(t, "POST", "/auth/login", map[string]any{"login": "admin", "password": kit.AdminPassword}).Expect(t, 200)
			d := r.Map(t)
			if d["token"] == "" || d["expiresAt"] == nil {
				t.Fatalf("data %s", r.Data)
			}
			user := d["user"].(map[string]any)
			if user["login"] != "admin" || user["is_seed_admin"] != true || user["is_core_admin"] != true || user["is_active"] != true {
				t.Fatalf("user %v", user)
			}
			c := r.Header.Get("Set-Cookie")
			if !strings.Contains(c, "core_token=") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
				t.Fatalf("cookie %q", c)
			}
		})

		t.Run("me with bearer and with cookie, logout clears cookie", func(t *testing.T) {
			adm := s.Admin(t)
			me := adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
			for _, k := range []string{"id", "login", "display_name", "email", "auth_source", "is_core_admin", "is_active", "created_at", "updated_at", "directory_attrs", "attribute_schema"} {
				if _, ok := me[k]; !ok {
					t.Errorf("card lacks %s", k)
				}
			}
			req, _ := http.NewRequest("GET", s.URL+"/api/v1/auth/me", nil)
			req.AddCookie(&http.Cookie{Name: "core_token", Value: adm.Token})
			anon.Send(t, req).Expect(t, 200)
			out := anon.Do(t, "POST", "/auth/logout", nil).Expect(t, 200)
			if c := out.Header.Get("Set-Cookie"); !strings.Contains(c, "core_token=;") || !strings.Contains(c, "Max-Age=0") {
				t.Fatalf("logout cookie %q", c)
			}
		})

		t.Run("wrong password and unknown login answer alike", func(t *testing.T) {
			a := anon.Do(t, "POST", "/auth/login", map[string]any{"login": "admin", "password": "wrong-password"}).Expect(t, 401, "UNAUTHORIZED")
			b := anon.Do(t, "POST", "/auth/login", map[string]any{"login": "nobody-here", "password": "wrong-password"}).Expect(t, 401, "UNAUTHORIZED")
			if string(a.Raw) != string(b.Raw) {
				t.Fatalf("answers differ:\n%s\n%s", a.Raw, b.Raw)
			}
			anon.Do(t, "POST", "/auth/login", map[string]any{"login": "core-system", "password": "anything-at-all"}).Expect(t, 401, "UNAUTHORIZED")
		})

		t.Run("bad credentials on protected routes", func(t *testing.T) {
			anon.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
			enc := base64.RawURLEncoding
			none := enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
				enc.EncodeToString([]byte(`{"sub":"x","iss":"coreportal","exp":4102444800}`)) + "."
			foreign := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJjb3JlcG9ydGFsIiwic3ViIjoieCIsImV4cCI6NDEwMjQ0NDgwMH0.9bXk6B8S2vI0z1o2lZ2xGQqJqv6r2m0yZ2bU1k0hF2E"
			for _, tok := range []string{"garbage", none, foreign, s.Admin(t).Token + "x"} {
				c := &kit.Client{S: s, Token: tok, HTTP: http.DefaultClient}
				c.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
			}
		})

		t.Run("malformed and unknown input gives 400", func(t *testing.T) {
			cases := []struct {
				name  string
				body  any
				field string
			}{
				{"malformed JSON", `{"login":`, ""},
				{"unknown field", map[string]any{"login": "a", "password": "b", "extra": 1}, "extra"},
				{"missing password", map[string]any{"login": "a"}, "password"},
				{"wrong type", map[string]any{"login": 5, "password": "b"}, "login"},
				{"bad authType", map[string]any{"login": "a", "password": "b", "authType": "kerberos"}, "authType"},
				{"domain not configured", map[string]any{"login": "a", "password": "b", "authType": "domain"}, "authType"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := anon.Do(t, "POST", "/auth/login", c.body).Expect(t, 400, "VALIDATION_ERROR")
					if c.field != "" && r.Error.Details["field"] != c.field {
						t.Fatalf("details %v", r.Error.Details)
					}
				})
			}
		})

		t.Run("parallel correct sign-ins of one login all pass", func(t *testing.T) {
			// a script starting its workers: more than the pair's five slots at once
			_, _ = s.CreateUser(t, "parallel", false)
			var wg sync.WaitGroup
			codes := make([]int, 24)
			for i := range codes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = anon.Do(t, "POST", "/auth/login", map[string]any{"login": "parallel", "password": "password-parallel"}).Status
				}()
			}
			wg.Wait()
			for i, c := range codes {
				if c != 200 {
					t.Fatalf("sign-in %d of 24 answered %d: %v", i, c, codes)
				}
			}
		})

		t.Run("failed sign-ins are throttled per login without revealing it", func(t *testing.T) {
			_, _ = s.CreateUser(t, "throttled", false)
			for i := 0; i < 5; i++ {
				anon.Do(t, "POST", "/auth/login", map[string]any{"login": "throttled", "password": "bad-password"}).Expect(t, 401)
				anon.Do(t, "POST", "/auth/login", map[string]any{"login": "ghost", "password": "bad-password"}).Expect(t, 401)
			}
			// Right password, but the login is locked for the window.
			anon.Do(t, "POST", "/auth/login", map[string]any{"login": "throttled", "password": "password-throttled"}).Expect(t, 429, "RATE_LIMITED")
			anon.Do(t, "POST", "/auth/login", map[string]any{"login": "ghost", "password": "x-password"}).Expect(t, 429, "RATE_LIMITED")
		})
	})
}

// TestCookieWrites: writes authenticated by the session cookie need the
// header X-Requested-With: CorePortal, refuse a foreign Origin and a body
// without Content-Type, and a refused write changes nothing; bearer calls
// are unaffected.
func TestCookieWrites(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		tok := adm.Token
		n := 0
		send := func(origin, ct, xrw string, cookie bool) (*kit.Response, string) {
			n++
			login := fmt.Sprintf("cookie%d", n)
			req, _ := http.NewRequest("POST", s.URL+"/api/v1/admin/users", strings.NewReader(`{"login":"`+login+`","password":"password-1"}`))
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			if xrw != "" {
				req.Header.Set("X-Requested-With", xrw)
			}
			if cookie {
				req.AddCookie(&http.Cookie{Name: "core_token", Value: tok})
			} else {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			return s.Anon().Send(t, req), login
		}
		cases := []struct {
			name            string
			origin, ct, xrw string
			cookie          bool
			want            int
		}{
			{"cookie, no header", "", "application/json", "", true, 403},
			{"cookie, no header, same origin", s.URL, "application/json", "", true, 403},
			{"cookie, another header value", "", "application/json", "XMLHttpRequest", true, 403},
			{"cookie, foreign origin", "https://evil.example", "application/json", "CorePortal", true, 403},
			{"cookie, no content type", "", "", "CorePortal", true, 400},
			{"cookie, header", "", "application/json", "CorePortal", true, 201},
			{"cookie, header and same origin", s.URL, "application/json", "CorePortal", true, 201},
			{"bearer, no header, no content type", "", "", "", false, 201},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r, login := send(c.origin, c.ct, c.xrw, c.cookie)
				if r.Status != c.want {
					t.Fatalf("status %d, want %d: %s", r.Status, c.want, r.Raw)
				}
				if c.want == 403 && c.xrw == "" && (r.Error.Code != "FORBIDDEN" || r.Error.Details["header"] != "X-Requested-With" ||
					!strings.Contains(r.Error.Message, "X-Requested-With: CorePortal")) {
					t.Fatalf("refusal does not name the header: %s", r.Raw)
				}
				found := adm.Do(t, "GET", "/admin/users?q="+login, nil).Expect(t, 200).Meta["total"]
				if created := found != float64(0); created != (c.want == 201) {
					t.Fatalf("user %s created=%v after status %d", login, created, r.Status)
				}
			})
		}
		t.Run("sign-in with a stale cookie needs no header, sign-out does", func(t *testing.T) {
			req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/login", strings.NewReader(`{"login":"admin","password":"`+kit.AdminPassword+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.AddCookie(&http.Cookie{Name: "core_token", Value: "stale"})
			r := s.Anon().Send(t, req).Expect(t, 200)
			var d struct{ Token string }
			r.Into(t, &d)
			out := func(hdr bool) *kit.Response {
				req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/logout", nil)
				req.AddCookie(&http.Cookie{Name: "core_token", Value: d.Token})
				if hdr {
					req.Header.Set("X-Requested-With", "CorePortal")
				}
				return s.Anon().Send(t, req)
			}
			out(false).Expect(t, 403, "FORBIDDEN")
			(&kit.Client{S: s, Token: d.Token, HTTP: http.DefaultClient}).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			out(true).Expect(t, 200)
			(&kit.Client{S: s, Token: d.Token, HTTP: http.DefaultClient}).Do(t, "GET", "/auth/me", nil).Expect(t, 401)
		})
	})
}

// TestNULAndOddIDs: NUL characters and non-canonical UUIDs get 400/404, never 500.
func TestNULAndOddIDs(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		s.Anon().Do(t, "POST", "/auth/login", `{"login":"a\u0000","password":"x"}`).Expect(t, 400, "VALIDATION_ERROR")
		adm := s.Admin(t)
		adm.Do(t, "POST", "/admin/users", `{"login":"nul","password":"password-1","displayName":"a\u0000b"}`).Expect(t, 400, "VALIDATION_ERROR")
		adm.Do(t, "GET", "/admin/users?q=a%00b", nil).Expect(t, 400, "VALIDATION_ERROR")
		me := adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
		id := me["id"].(string)
		for _, form := range []string{"urn:uuid:" + id, "{" + id + "}", strings.ToUpper(id), strings.ReplaceAll(id, "-", "")} {
			c := adm.Do(t, "GET", "/admin/users/"+form, nil).Expect(t, 200).Map(t)
			if c["id"] != id {
				t.Fatalf("%s resolved to %v", form, c["id"])
			}
		}
		adm.Do(t, "GET", "/admin/users?page=9223372036854775807&limit=2", nil).Expect(t, 400, "VALIDATION_ERROR")
	})
}
