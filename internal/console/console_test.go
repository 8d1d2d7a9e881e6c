package console

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

var script = strings.Repeat("export const greeting = 'hello, console';\n", 200)

func build(t *testing.T) *Handler {
	t.Helper()
	h, err := New(fstest.MapFS{
		"index.html":            {Data: []byte(`<!doctype html><script type="module" src="/assets/index-abc.js"></script>` + strings.Repeat(" ", 300))},
		"assets/index-abc.js":   {Data: []byte(script)},
		"assets/logo-abc.svg":   {Data: []byte("<svg/>")},
		"assets/font-abc.woff2": {Data: []byte{0, 1, 2}},
		"favicon.ico":           {Data: []byte{0, 0, 1, 0}},
		SandboxFile:             {Data: []byte(`<!doctype html><script src="/assets/sandbox-abc.js"></script>`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, method, path string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestPreference(t *testing.T) {
	cases := map[string][]int{
		"":                         nil,
		"gzip":                     {2},
		"gzip, deflate, br, zstd":  {0, 1, 2},
		"gzip;q=1, br;q=0.5":       {2, 0},
		"br;q=0, *":                {1, 2},
		"identity":                 nil,
		"ZSTD;q=0.9, gzip;q=0.95":  {2, 1},
		"*;q=0":                    nil,
		"gzip;q=bogus, br;q=0.001": {2, 0},
	}
	for in, want := range cases {
		if got := preference([]string{in}); !slices.Equal(got, want) {
			t.Errorf("preference(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestRoutesAndHeaders(t *testing.T) {
	h := build(t)
	for _, p := range []string{"/", "/groups/new", "/hr/team/lists/tasks", "/pages/welcome", "/index.html"} {
		w := get(h, "GET", p)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "index-abc.js") {
			t.Fatalf("%s: %d %q", p, w.Code, w.Body.String())
		}
		hd := w.Header()
		if hd.Get("Content-Security-Policy") != CSP || hd.Get("Cache-Control") != "no-cache" ||
			hd.Get("Referrer-Policy") != "same-origin" || hd.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.HasPrefix(hd.Get("Content-Type"), "text/html") || hd.Get("ETag") == "" {
			t.Fatalf("%s headers: %v", p, hd)
		}
	}
	w := get(h, "GET", "/assets/index-abc.js")
	if w.Code != 200 || w.Body.String() != script || w.Header().Get("Content-Type") != "text/javascript; charset=utf-8" ||
		w.Header().Get("Cache-Control") != cacheImmutable {
		t.Fatalf("asset: %d %v", w.Code, w.Header())
	}
	if ct := get(h, "GET", "/assets/font-abc.woff2").Header().Get("Content-Type"); ct != "font/woff2" {
		t.Fatalf("woff2 type %q", ct)
	}
	if w := get(h, "GET", "/favicon.ico"); w.Code != 200 || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("root file: %d %v", w.Code, w.Header())
	}
	if w := get(h, "GET", "/"+SandboxFile); w.Code != 200 || w.Header().Get("Content-Security-Policy") != SandboxCSP ||
		w.Header().Get("X-Frame-Options") != "" || !strings.Contains(w.Body.String(), "sandbox-abc.js") {
		t.Fatalf("sandbox document: %d %v", w.Code, w.Header())
	}
	for _, p := range []string{"/assets/missing.js", "/assets/", "/api/v1/nope", "/api", "/health/x", "/metrics/x", "/assets/../index.html"} {
		w := get(h, "GET", p)
		if w.Code != 404 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %s %q", p, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
	if w := get(h, "HEAD", "/assets/index-abc.js"); w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != "8400" {
		t.Fatalf("HEAD: %d %v %d", w.Code, w.Header(), w.Body.Len())
	}
}

func TestCompressedOnceAndRevalidated(t *testing.T) {
	h := build(t)
	decode := map[string]func(io.Reader) (io.Reader, error){
		"br":   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"zstd": func(r io.Reader) (io.Reader, error) { d, err := zstd.NewReader(r); return d, err },
	}
	for enc, dec := range decode {
		w := get(h, "GET", "/assets/index-abc.js", "Accept-Encoding", enc)
		if w.Header().Get("Content-Encoding") != enc || w.Header().Get("Vary") != "Accept-Encoding" || w.Body.Len() >= len(script) {
			t.Fatalf("%s: %v, %d bytes", enc, w.Header(), w.Body.Len())
		}
		rd, err := dec(bytes.NewReader(w.Body.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(rd); err != nil || string(b) != script {
			t.Fatalf("%s: decoded %d bytes, %v", enc, len(b), err)
		}
		again := get(h, "GET", "/assets/index-abc.js", "Accept-Encoding", enc)
		if !bytes.Equal(again.Body.Bytes(), w.Body.Bytes()) {
			t.Fatalf("%s: second answer differs", enc)
		}
	}
	if w := get(h, "GET", "/assets/logo-abc.svg", "Accept-Encoding", "gzip"); w.Header().Get("Content-Encoding") != "" || w.Body.String() != "<svg/>" {
		t.Fatalf("tiny file compressed: %v", w.Header())
	}
	first := get(h, "GET", "/", "Accept-Encoding", "gzip")
	tag := first.Header().Get("ETag")
	if w := get(h, "GET", "/lists", "Accept-Encoding", "gzip", "If-None-Match", tag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Fatalf("If-None-Match: %d", w.Code)
	}
	if w := get(h, "GET", "/", "If-None-Match", `"other"`); w.Code != 200 {
		t.Fatalf("other tag: %d", w.Code)
	}
}

func TestNewNeedsIndex(t *testing.T) {
	if _, err := New(fstest.MapFS{"assets/a.js": {Data: []byte("x")}}); err == nil {
		t.Fatal("a build without index.html was accepted")
	}
}

func BenchmarkEncode(b *testing.B) {
	src := bytes.Repeat([]byte(script), 40)
	for _, enc := range encodings {
		b.Run(enc, func(b *testing.B) {
			for b.Loop() {
				out, err := encode(enc, src)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(out)), "bytes")
			}
		})
	}
}
