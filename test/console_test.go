package test

import (
	"compress/gzip"
	"io"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// consoleCSP is the policy the console's HTML must carry (internal/console).
const consoleCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'; frame-src 'self'"

func fetch(t *testing.T, method, url string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	// a bare transport: no transparent gzip, the test sees the wire
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestConsoleServing: the console answers at / and on every console route
// with index.html under a strict CSP, the API and server paths keep their
// JSON answers, and unknown /api/v1 paths never answer HTML.
func TestConsoleServing(t *testing.T) {
	s := kit.Start(t, kit.Backends(t)[0])
	index, body := fetch(t, "GET", s.URL+"/")
	if index.StatusCode != 200 || !strings.Contains(strings.ToLower(string(body)), "<!doctype html>") {
		t.Fatalf("/: %d %s", index.StatusCode, body)
	}
	tag := index.Header.Get("ETag")
	routes := []string{"/", "/groups", "/groups/new", "/nodes/new?parentId=x", "/hr/team/lists/tasks", "/libraries/docs",
		"/pages/welcome", "/hr/surveys/poll/results", "/groups/0b0e7a5e-55b3-4c83-a0b5-4b2b8d5a2f10/edit"}
	for _, p := range routes {
		for _, m := range []string{"GET", "HEAD"} {
			r, b := fetch(t, m, s.URL+p, "Cookie", "core_token=whatever")
			h := r.Header
			if r.StatusCode != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || h.Get("Content-Security-Policy") != consoleCSP ||
				h.Get("Cache-Control") != "no-cache" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "same-origin" ||
				h.Get("ETag") != tag {
				t.Fatalf("%s %s: %d %v", m, p, r.StatusCode, h)
			}
			if (m == "HEAD") != (len(b) == 0) || (m == "GET" && string(b) != string(body)) {
				t.Fatalf("%s %s: body of %d bytes", m, p, len(b))
			}
		}
	}
	if r, b := fetch(t, "GET", s.URL+"/pages/welcome", "If-None-Match", tag); r.StatusCode != 304 || len(b) != 0 {
		t.Fatalf("If-None-Match: %d", r.StatusCode)
	}
	if r, b := fetch(t, "GET", s.URL+"/", "Accept-Encoding", "gzip"); r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if plain, _ := io.ReadAll(zr); string(plain) != string(body) {
			t.Fatalf("gzip index differs")
		}
	}
	checkAssets(t, s, string(body))
	notFound := []string{"/assets/missing-0000.js", "/api/v1/no-such-thing", "/api/v1/lists/x/no-such", "/api/nope", "/health/x", "/ready/x", "/metrics/x"}
	for _, p := range notFound {
		r, b := fetch(t, "GET", s.URL+p)
		if r.StatusCode != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || !strings.Contains(string(b), `"NOT_FOUND"`) {
			t.Fatalf("%s: %d %s %s", p, r.StatusCode, r.Header.Get("Content-Type"), b)
		}
	}
	for _, p := range []string{"/health", "/api/v1/openapi.json", "/api/v1", "/api"} {
		if r, _ := fetch(t, "GET", s.URL+p); r.StatusCode != 200 || !strings.Contains(r.Header.Get("Content-Type"), "json") {
			t.Fatalf("%s: %d %s", p, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
	if r, _ := fetch(t, "GET", s.URL+"/api/docs"); r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") ||
		r.Header.Get("Content-Security-Policy") == consoleCSP {
		t.Fatalf("/api/docs: %d %v", r.StatusCode, r.Header)
	}
	s.Anon().Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
	s.Anon().Do(t, "POST", s.URL+"/pages/welcome", "{}").Expect(t, 404, "NOT_FOUND")
	s.Admin(t).Do(t, "POST", "/nodes", map[string]any{"slug": "assets", "title": "Assets"}).Expect(t, 400, "VALIDATION_ERROR")
}

var assetRef = regexp.MustCompile(`/assets/[A-Za-z0-9._-]+`)

// checkAssets fetches every build file index.html names: each answers with
// its media type and a year-long immutable cache, text files compressed.
func checkAssets(t *testing.T, s *kit.Server, index string) {
	t.Helper()
	types := map[string]string{".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".woff2": "font/woff2", ".png": "image/png"}
	for _, ref := range assetRef.FindAllString(index, -1) {
		plain, body := fetch(t, "GET", s.URL+ref)
		ext := path.Ext(ref)
		if plain.StatusCode != 200 || plain.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			(types[ext] != "" && !strings.HasPrefix(plain.Header.Get("Content-Type"), types[ext])) {
			t.Fatalf("%s: %d %v", ref, plain.StatusCode, plain.Header)
		}
		if ext != ".js" && ext != ".css" || len(body) < 1024 {
			continue
		}
		for _, enc := range []string{"gzip", "br", "zstd"} {
			r, zb := fetch(t, "GET", s.URL+ref, "Accept-Encoding", enc)
			if r.Header.Get("Content-Encoding") != enc || len(zb) >= len(body) || !strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
				t.Fatalf("%s as %s: %v, %d of %d bytes", ref, enc, r.Header, len(zb), len(body))
			}
		}
	}
}

// TestSelfService: a user changes their own password (other sessions end,
// the calling one goes on with the fresh token or cookie; wrong current
// passwords are throttled) and their interface preferences.
func TestSelfService(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		t.Run("preferences", func(t *testing.T) { testPreferences(t, s) })
		t.Run("change password", func(t *testing.T) { testChangePassword(t, s) })
	})
}

func testPreferences(t *testing.T, s *kit.Server) {
	u, _ := s.CreateUser(t, "prefs", false)
	other, _ := s.CreateUser(t, "prefs2", false)
	got := u.Do(t, "GET", "/auth/me/preferences", nil).Expect(t, 200).Map(t)
	if got["language"] != nil || got["timeZone"] != nil || len(got) != 2 {
		t.Fatalf("fresh preferences %v", got)
	}
	u.Do(t, "PATCH", "/auth/me/preferences", map[string]any{"language": "ru", "timeZone": "Europe/Moscow"}).Expect(t, 200)
	got = u.Do(t, "PATCH", "/auth/me/preferences", map[string]any{"timeZone": "Asia/Yekaterinburg"}).Expect(t, 200).Map(t)
	if got["language"] != "ru" || got["timeZone"] != "Asia/Yekaterinburg" {
		t.Fatalf("after patch %v", got)
	}
	bad := []struct {
		body  any
		field string
	}{
		{map[string]any{"language": "fr"}, "language"},
		{map[string]any{"language": ""}, "language"},
		{map[string]any{"timeZone": "Mars/Olympus"}, "timeZone"},
		{map[string]any{"timeZone": "europe/moscow"}, "timeZone"},
		{map[string]any{"timeZone": "Local"}, "timeZone"},
		{map[string]any{"timeZone": "../../etc/passwd"}, "timeZone"},
		{map[string]any{"timeZone": ""}, "timeZone"},
		{map[string]any{"language": "en", "timeZone": 3}, "timeZone"},
		{map[string]any{"language": "en", "theme": "dark"}, "theme"},
	}
	for _, b := range bad {
		r := u.Do(t, "PATCH", "/auth/me/preferences", b.body).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != b.field {
			t.Fatalf("%v named %v", b.body, r.Error.Details["field"])
		}
	}
	me := u.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
	if p, _ := me["preferences"].(map[string]any); p["language"] != "ru" || p["timeZone"] != "Asia/Yekaterinburg" {
		t.Fatalf("refused patches changed something, or the card lacks them: %v", me["preferences"])
	}
	if p := other.Do(t, "GET", "/auth/me/preferences", nil).Expect(t, 200).Map(t); p["language"] != nil {
		t.Fatalf("another user's preferences changed: %v", p)
	}
	got = u.Do(t, "PATCH", "/auth/me/preferences", map[string]any{"language": nil}).Expect(t, 200).Map(t)
	if got["language"] != nil || got["timeZone"] != "Asia/Yekaterinburg" {
		t.Fatalf("null did not clear only language: %v", got)
	}
	u.Do(t, "PATCH", "/auth/me/preferences", map[string]any{"language": "en", "timeZone": nil}).Expect(t, 200)
	if p := u.Do(t, "GET", "/auth/me/preferences", nil).Expect(t, 200).Map(t); p["language"] != "en" || p["timeZone"] != nil {
		t.Fatalf("stored %v", p)
	}
	s.Anon().Do(t, "GET", "/auth/me/preferences", nil).Expect(t, 401, "UNAUTHORIZED")
}

func bearerOf(s *kit.Server, tok string) *kit.Client {
	return &kit.Client{S: s, Token: tok, HTTP: http.DefaultClient}
}

func testChangePassword(t *testing.T, s *kit.Server) {
	first, _ := s.CreateUser(t, "changer", false)
	second := s.Login(t, "changer", "password-changer")
	change := func(c *kit.Client, current, next string) *kit.Response {
		return c.Do(t, "POST", "/auth/change-password", map[string]any{"currentPassword": current, "newPassword": next})
	}
	for _, c := range []struct{ current, next, field string }{
		{"password-changer", "short", "newPassword"},
		{"password-changer", "changer", "newPassword"},
		{"password-changer", "password", "newPassword"},
		{"password-changer", "password-changer", "newPassword"},
		{"wrong-password", "Brand-new-pass-1", "currentPassword"},
	} {
		r := change(first, c.current, c.next).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != c.field {
			t.Fatalf("%s -> %s named %v: %s", c.current, c.next, r.Error.Details["field"], r.Raw)
		}
	}
	s.Login(t, "changer", "password-changer") // nothing changed
	r := change(first, "password-changer", "Brand-new-pass-1").Expect(t, 200)
	var d struct {
		Token     string `json:"token"`
		ExpiresAt string `json:"expiresAt"`
	}
	r.Into(t, &d)
	if d.Token == "" || d.ExpiresAt == "" || !strings.Contains(r.Header.Get("Set-Cookie"), "core_token="+d.Token) ||
		!strings.Contains(r.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("answer %s, cookie %q", r.Raw, r.Header.Get("Set-Cookie"))
	}
	second.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
	first.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
	fresh := bearerOf(s, d.Token)
	fresh.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
	s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "changer", "password": "password-changer"}).Expect(t, 401, "UNAUTHORIZED")
	s.Login(t, "changer", "Brand-new-pass-1")

	// through the cookie, as the console does: the header is required, the cookie is renewed
	cookieCall := func(tok string, hdr bool, body string) *kit.Response {
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/change-password", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: "core_token", Value: tok})
		if hdr {
			req.Header.Set("X-Requested-With", "CorePortal")
		}
		return s.Anon().Send(t, req)
	}
	body := `{"currentPassword":"Brand-new-pass-1","newPassword":"Second-new-pass-2"}`
	cookieCall(d.Token, false, body).Expect(t, 403, "FORBIDDEN")
	s.Login(t, "changer", "Brand-new-pass-1") // refused: nothing changed
	cr := cookieCall(d.Token, true, body).Expect(t, 200)
	var renewed *http.Cookie
	for _, c := range (&http.Response{Header: cr.Header}).Cookies() {
		if c.Name == "core_token" {
			renewed = c
		}
	}
	if renewed == nil || renewed.Value == "" || renewed.Value == d.Token {
		t.Fatalf("cookie not renewed: %v", cr.Header.Values("Set-Cookie"))
	}
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/auth/me", nil)
	req.AddCookie(renewed)
	s.Anon().Send(t, req).Expect(t, 200)
	fresh.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")

	// wrong current passwords count for the sign-in throttle of the login
	now := s.Login(t, "changer", "Second-new-pass-2")
	limited := false
	for i := 0; i < 8 && !limited; i++ {
		r := change(now, "not-the-password", "Third-new-pass-3")
		switch r.Status {
		case 429:
			limited = true
			if r.Error.Code != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without its code or Retry-After: %v %s", r.Header, r.Raw)
			}
		case 400:
		default:
			t.Fatalf("guess %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if !limited {
		t.Fatal("eight wrong current passwords were never throttled")
	}
	change(now, "Second-new-pass-2", "Third-new-pass-3").Expect(t, 429, "RATE_LIMITED")
	now.Do(t, "GET", "/auth/me", nil).Expect(t, 200) // the session itself goes on
}
