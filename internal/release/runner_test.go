package release

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDownload: a cut connection resumes with Range; a body larger than
// offered, a site that ignores Range, and a missing package fail.
func TestDownload(t *testing.T) {
	pkg := []byte(strings.Repeat("coreportal-", 10000))
	var cuts atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "p", time.Time{}, strings.NewReader(string(pkg)))
	})
	mux.HandleFunc("/cut-twice", func(w http.ResponseWriter, r *http.Request) {
		if cuts.Add(1) <= 2 {
			w.Header().Set("Content-Length", "999999")
			w.WriteHeader(200)
			_, _ = w.Write(pkg[:1000])
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		http.ServeContent(w, r, "p", time.Time{}, strings.NewReader(string(pkg)))
	})
	mux.HandleFunc("/no-range", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") == "" {
			w.Header().Set("Content-Length", "999999")
			_, _ = w.Write(pkg[:1000])
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		_, _ = w.Write(pkg)
	})
	mux.HandleFunc("/bigger", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(append(pkg, 'x')) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r := &Runner{cfg: RunnerConfig{MaxDownload: 1 << 20}}
	want := sha256.Sum256(pkg)
	for _, c := range []struct {
		path string
		ok   bool
	}{{"/ok", true}, {"/cut-twice", true}, {"/no-range", false}, {"/bigger", false}, {"/missing", false}} {
		staged := filepath.Join(t.TempDir(), "pkg")
		sum, err := r.download(context.Background(), &Offer{DownloadURL: srv.URL + c.path, Size: int64(len(pkg))}, staged)
		if c.ok && (err != nil || string(sum) != string(want[:])) {
			t.Errorf("%s: %v", c.path, err)
		}
		if !c.ok && err == nil {
			t.Errorf("%s: accepted", c.path)
		}
	}
	if cuts.Load() != 3 {
		t.Errorf("cut-twice: %d requests, want 3", cuts.Load())
	}
}

func TestReleaseFileNotCreated(t *testing.T) {
	r := &Runner{cfg: RunnerConfig{ReleaseFile: filepath.Join(t.TempDir(), "RELEASE")}}
	if err := r.writeReleaseFile("2.0.0"); err != nil { // no file: nothing written
		t.Fatal(err)
	}
	s := &Service{cfg: Config{ReleaseFile: r.cfg.ReleaseFile}}
	if s.readReleaseFile() != "" {
		t.Fatal("a RELEASE file appeared")
	}
}
