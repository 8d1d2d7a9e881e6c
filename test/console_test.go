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
