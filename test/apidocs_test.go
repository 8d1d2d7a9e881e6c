package test

import (
	"compress/gzip"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// plainGet fetches a path of the reference (outside the OpenAPI document)
// with the given Accept-Encoding, without the transport's own decompression.
func plainGet(t *testing.T, url, encoding string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
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

var srcRE = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

// checkReference: /api/docs is an HTML page that loads the embedded
// renderer and its settings from this server only, the renderer is served
// as JavaScript, gzip-compressed when the caller accepts it, and neither the
// page nor its settings name another host.
func checkReference(t *testing.T, s *kit.Server) {
	resp, page := plainGet(t, s.URL+"/api/docs", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/api/docs: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "connect-src 'self'", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "http") {
		t.Errorf("CSP %q names a host", csp)
	}
	var scripts []string
	for _, m := range srcRE.FindAllStringSubmatch(string(page), -1) {
		if strings.HasPrefix(m[1], "/api/docs/") {
			scripts = append(scripts, m[1])
		}
	}
	if len(scripts) != 2 || scripts[0] != "/api/docs/scalar.js" {
		t.Fatalf("the page loads %v, want the embedded renderer and its settings:\n%s", scripts, page)
	}
	texts := [][]byte{page}
	for _, src := range scripts {
		plain, body := plainGet(t, s.URL+src, "")
		if plain.StatusCode != 200 || !strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") || plain.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: %d %q %q", src, plain.StatusCode, plain.Header.Get("Content-Type"), plain.Header.Get("Content-Encoding"))
		}
		gz, zipped := plainGet(t, s.URL+src, "gzip, deflate, br")
		if gz.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("%s with Accept-Encoding gzip: Content-Encoding %q, Vary %q", src, gz.Header.Get("Content-Encoding"), gz.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(strings.NewReader(string(zipped)))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || string(unzipped) != string(body) {
			t.Fatalf("%s: the gzip answer is not the script (%v)", src, err)
		}
		if src == "/api/docs/scalar.js" {
			if len(zipped) >= len(body)/2 {
				t.Errorf("renderer compressed %d of %d bytes", len(zipped), len(body))
			}
			if nm := plainGetStatus(t, s.URL+src, gz.Header.Get("ETag")); nm != http.StatusNotModified {
				t.Errorf("If-None-Match with the ETag answered %d, want 304", nm)
			}
			continue // the renderer's own code names hosts it never loads (the CSP forbids them)
		}
		texts = append(texts, body)
	}
	host := regexp.MustCompile(`https?://[^\\s"'<>)]+`)
	for _, text := range texts {
		for _, u := range host.FindAllString(string(text), -1) {
			if !strings.HasPrefix(u, s.URL) {
				t.Errorf("the reference names another host: %s", u)
			}
		}
	}
	if !strings.Contains(string(texts[len(texts)-1]), "/api/v1/openapi.json") {
		t.Errorf("the settings do not load /api/v1/openapi.json")
	}
}

func plainGetStatus(t *testing.T, url, etag string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("If-None-Match", etag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
