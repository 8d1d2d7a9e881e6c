package test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// rawDo sends a request outside the kit client (preflights are not API operations).
func rawDo(t *testing.T, method, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestCORSOrigins(t *testing.T) {
	t.Parallel()
	const app, evil = "https://app.example.com", "https://evil.example.com"
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		me := s.URL + "/api/v1/auth/me"
		for _, c := range []struct {
			origin string
			allow  bool
		}{{app, true}, {evil, false}, {"https://app.example.com.evil.example", false}, {"http://app.example.com", false}} {
			pre := rawDo(t, "OPTIONS", me, map[string]string{"Origin": c.origin, "Access-Control-Request-Method": "PATCH",
				"Access-Control-Request-Headers": "authorization, content-type, x-requested-with"}, "")
			got := pre.Header.Get("Access-Control-Allow-Origin")
			if c.allow != (got != "") || (c.allow && (pre.StatusCode != 204 || pre.Header.Get("Access-Control-Allow-Credentials") != "true" ||
				!strings.Contains(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "authorization"))) {
				t.Fatalf("preflight from %s: %d %v", c.origin, pre.StatusCode, pre.Header)
			}
		}
		// credentialed requests with the session cookie
		login := s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "admin", "password": kit.AdminPassword}).Expect(t, 200)
		var cookie string
		for _, v := range login.Header.Values("Set-Cookie") {
			if strings.HasPrefix(v, "core_token=") {
				cookie = strings.SplitN(v, ";", 2)[0]
			}
		}
		if cookie == "" {
			t.Fatal("no session cookie")
		}
		get := rawDo(t, "GET", me, map[string]string{"Origin": app, "Cookie": cookie}, "")
		if get.StatusCode != 200 || get.Header.Get("Access-Control-Allow-Origin") != app || get.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Fatalf("credentialed GET from %s: %d %v", app, get.StatusCode, get.Header)
		}
		if other := rawDo(t, "GET", me, map[string]string{"Origin": evil, "Cookie": cookie}, ""); other.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("credentialed GET from %s allowed: %v", evil, other.Header)
		}
		write := func(origin string) int {
			return rawDo(t, "POST", s.URL+"/api/v1/nodes", map[string]string{"Origin": origin, "Cookie": cookie, "Content-Type": "application/json",
				"X-Requested-With": "CorePortal"}, `{"slug":"cors-`+strings.Split(origin, ".")[0][8:]+`","title":"From a front end"}`).StatusCode
		}
		if st := write(app); st != 201 {
			t.Fatalf("cookie write from %s: %d", app, st)
		}
		if st := write(evil); st != 403 {
			t.Fatalf("cookie write from %s: %d", evil, st)
		}
	}, "CORE_CORS_ORIGINS=https://app.example.com, https://intranet.example.org:8443")
}

func TestCORSOffByDefault(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		pre := rawDo(t, "OPTIONS", s.URL+"/api/v1/auth/me", map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "GET"}, "")
		get := rawDo(t, "GET", s.URL+"/api/v1/auth/me", map[string]string{"Origin": "https://app.example.com"}, "")
		if pre.Header.Get("Access-Control-Allow-Origin") != "" || get.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("CORS headers without CORE_CORS_ORIGINS: %v %v", pre.Header, get.Header)
		}
	})
}

func TestServiceTokens(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		user, _ := s.CreateUser(t, "dave", false)
		user.Do(t, "POST", "/admin/service-accounts", map[string]any{"login": "ci-bot"}).Expect(t, 403, "FORBIDDEN")
		acc := admin.Do(t, "POST", "/admin/service-accounts", map[string]any{"login": "ci-bot", "displayName": "CI", "isCoreAdmin": true}).Expect(t, 201).Map(t)
		admin.Do(t, "POST", "/admin/service-accounts", map[string]any{"login": "ci-bot"}).Expect(t, 409, "CONFLICT")
		id := acc["id"].(string)
		tokens := "/admin/service-accounts/" + id + "/tokens"
		admin.Do(t, "POST", tokens, map[string]any{"name": "x", "scope": "root"}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", tokens, map[string]any{"name": "x", "scope": "read", "expiresAt": "2001-01-01T00:00:00Z"}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", "/admin/service-accounts/00000000-0000-0000-0000-000000000001/tokens", map[string]any{"name": "x", "scope": "read"}).Expect(t, 404, "NOT_FOUND")
		issue := func(name, scope string, exp *time.Time) (string, string) {
			body := map[string]any{"name": name, "scope": scope}
			if exp != nil {
				body["expiresAt"] = exp.UTC().Format(time.RFC3339)
			}
			m := admin.Do(t, "POST", tokens, body).Expect(t, 201).Map(t)
			tok := m["token"].(string)
			if !strings.HasPrefix(tok, "cpst_") || m["scope"] != scope {
				t.Fatalf("token: %v", m)
			}
			return tok, m["id"].(string)
		}
		readTok, _ := issue("reader", "read", nil)
		writeTok, writeID := issue("writer", "write", nil)
		soon := time.Now().Add(3 * time.Second)
		shortTok, _ := issue("short", "read", &soon)
		as := func(tok string) *kit.Client { return &kit.Client{S: s, Token: tok, HTTP: http.DefaultClient} }

		if me := as(readTok).Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t); me["login"] != "ci-bot" {
			t.Fatalf("me: %v", me)
		}
		as(readTok).Do(t, "POST", "/nodes", map[string]any{"slug": "ro", "title": "RO"}).Expect(t, 403, "FORBIDDEN")
		node := as(writeTok).Do(t, "POST", "/nodes", map[string]any{"slug": "bot-node", "title": "By the bot"}).Expect(t, 201).Map(t)
		as("cpst_notatoken").Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")

		// the listing never shows a secret
		raw := admin.Do(t, "GET", "/admin/service-accounts", nil).Expect(t, 200).Raw
		for _, tok := range []string{readTok, writeTok, shortTok} {
			if strings.Contains(string(raw), tok) {
				t.Fatal("a token secret is listed")
			}
		}
		// every write is attributable: the change and the token use name the account and the token
		var rows []map[string]any
		admin.Do(t, "GET", "/admin/audit?action=serviceToken.use&resourceId="+writeID, nil).Expect(t, 200).Into(t, &rows)
		if len(rows) == 0 || rows[0]["actorLogin"] != "ci-bot" || rows[0]["actorId"] != id {
			t.Fatalf("token use audit: %v", rows)
		}
		d := rows[0]["details"].(map[string]any)
		if d["method"] != "POST" || d["path"] != "/api/v1/nodes" || d["status"] != float64(201) || d["keyName"] != "writer" {
			t.Fatalf("token use details: %v", d)
		}
		admin.Do(t, "GET", "/admin/audit?actor=ci-bot&action=serviceToken.use", nil).Expect(t, 200).Into(t, &rows)
		var refused bool
		for _, r := range rows {
			if r["outcome"] == "failure" && r["details"].(map[string]any)["status"] == float64(403) {
				refused = true
			}
		}
		if !refused {
			t.Fatalf("the read-only refusal is not audited: %v", rows)
		}
		_ = node

		// revocation is immediate
		admin.Do(t, "DELETE", tokens+"/"+writeID, nil).Expect(t, 200)
		as(writeTok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
		var list []map[string]any
		admin.Do(t, "GET", tokens, nil).Expect(t, 200).Into(t, &list)
		for _, tk := range list {
			if tk["id"] == writeID && tk["revokedAt"] == nil {
				t.Fatalf("revoked token: %v", tk)
			}
		}
		// expiry
		as(shortTok).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		time.Sleep(time.Until(soon) + 200*time.Millisecond)
		as(shortTok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
		// a deactivated account's tokens stop
		admin.Do(t, "PATCH", "/admin/users/"+id, map[string]any{"isActive": false}).Expect(t, 200)
		as(readTok).Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
	})
}
