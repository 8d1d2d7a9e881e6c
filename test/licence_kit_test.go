package test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/licence"
	"coreportal/internal/release"
	"coreportal/internal/store"
	"coreportal/test/kit"
)

// The vendor's key pair of these tests: licences and packages are signed
// with it, and the servers trust it through CORE_LICENSE_PUBLIC_KEY and
// CORE_UPDATE_PUBLIC_KEY.
var vendorPub, vendorPriv, _ = ed25519.GenerateKey(rand.Reader)

func vendorKeyEnv() []string {
	k := base64.StdEncoding.EncodeToString(vendorPub)
	return []string{"CORE_LICENSE_PUBLIC_KEY=" + k, "CORE_UPDATE_PUBLIC_KEY=" + k}
}

func testPlatform() string { return runtime.GOOS + "-" + runtime.GOARCH }

// signLicence returns a key for binding valid for days (negative = expired).
func signLicence(t testing.TB, binding string, days int, edit func(*licence.Payload)) string {
	t.Helper()
	p := licence.Payload{LicenseID: "LIC-" + binding[:min(6, len(binding))], Customer: "ACME Corp", ExpiresAt: time.Now().Add(time.Duration(days) * 24 * time.Hour).UTC(),
		InstallBinding: binding, Channel: "stable", Platform: testPlatform(), Modules: []string{"vendor.helpdesk.*"}}
	if edit != nil {
		edit(&p)
	}
	k, err := licence.Sign(p, vendorPriv)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// vendorSite is a fake vendor update site: latest-release query, entitle
// and one-time downloads, with a mode that makes one phase fail.
type vendorSite struct {
	*httptest.Server
	mu       sync.Mutex
	latest   string
	mode     string // "", refuse, cut, cutonce, badsig
	pkg      []byte // package bytes served
	version  string // version the offer names
	entitled []release.EntitleRequest
	gets     int
}

func newVendor(t testing.TB) *vendorSite {
	v := &vendorSite{latest: "2.0.0"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/releases/latest", func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		defer v.mu.Unlock()
		if r.URL.Query().Get("channel") != "stable" || r.URL.Query().Get("platform") != testPlatform() {
			http.Error(w, "bad query", 400)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": map[string]any{"version": v.latest,
			"changelog": map[string]any{"whatsNew": []string{"Faster lists"}, "fixes": []string{"Menu order"}}, "link": v.URL + "/releases/" + v.latest}})
	})
	mux.HandleFunc("POST /api/v1/entitle", func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		defer v.mu.Unlock()
		var req release.EntitleRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		v.entitled = append(v.entitled, req)
		if v.mode == "refuse" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			_, _ = w.Write([]byte(`{"success":false,"error":{"code":"FORBIDDEN","message":"no update entitlement for this licence"}}`))
			return
		}
		sum := sha256.Sum256(v.pkg)
		sha := hex.EncodeToString(sum[:])
		msg := release.PackageMessage(v.version, testPlatform(), sha)
		if v.mode == "badsig" {
			msg = release.PackageMessage(v.version, testPlatform(), strings.Repeat("0", 64))
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "data": release.Offer{DownloadURL: v.URL + "/dl/once-" + req.CurrentVersion,
			Version: v.version, Platform: testPlatform(), Size: int64(len(v.pkg)), SHA256: sha, Signature: hex.EncodeToString(ed25519.Sign(vendorPriv, msg))}})
	})
	mux.HandleFunc("GET /dl/", func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		v.gets++
		mode, pkg, n := v.mode, v.pkg, v.gets
		v.mu.Unlock()
		if mode == "cut" || (mode == "cutonce" && n == 1) {
			// send half of the package, then drop the connection
			w.Header().Set("Content-Length", fmt.Sprint(len(pkg)))
			w.WriteHeader(200)
			_, _ = w.Write(pkg[:len(pkg)/2])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		http.ServeContent(w, r, "coreportal", time.Time{}, strings.NewReader(string(pkg)))
	})
	v.Server = httptest.NewServer(mux)
	t.Cleanup(v.Close)
	return v
}

func (v *vendorSite) set(mode, version string, pkg []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.mode, v.version, v.pkg, v.gets = mode, version, pkg, 0
}

var (
	v2Once sync.Once
	v2Path string
	v2Err  error
)

// probeMigration makes migrations of the second build fail while the
// settings row update-probe-fail exists (a duplicate key), and pass otherwise.
const probeMigration = "INSERT INTO settings (key, value, updated_at) SELECT key, value, updated_at FROM settings WHERE key = 'update-probe-fail';\n"

// secondBuild builds, once per test process, the service as release 2.0.0
// with one more migration (probeMigration), without touching the source tree.
func secondBuild(t testing.TB) string {
	t.Helper()
	v2Once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root, _ := filepath.Abs(filepath.Join(filepath.Dir(file), ".."))
		dir, err := os.MkdirTemp("", "coreportal-v2")
		if err != nil {
			v2Err = err
			return
		}
		probe := filepath.Join(dir, "probe.sql")
		if v2Err = os.WriteFile(probe, []byte(probeMigration), 0o644); v2Err != nil {
			return
		}
		overlay := map[string]map[string]string{"Replace": {}}
		for _, d := range []string{"sqlite", "postgres"} {
			overlay["Replace"][filepath.Join(root, "internal/store/migrations", d, "9999_update_probe.sql")] = probe
		}
		ov, _ := json.Marshal(overlay)
		ovPath := filepath.Join(dir, "overlay.json")
		if v2Err = os.WriteFile(ovPath, ov, 0o644); v2Err != nil {
			return
		}
		v2Path = filepath.Join(dir, "coreportal")
		cmd := exec.Command("go", "build", "-overlay", ovPath, "-ldflags", "-X main.version=2.0.0", "-o", v2Path, "./cmd/coreportal")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			v2Err = fmt.Errorf("go build v2: %v\n%s", err, out)
		}
	})
	if v2Err != nil {
		t.Fatal(v2Err)
	}
	return v2Path
}

// copyBinary copies bin into a fresh folder (the runner replaces it there).
func copyBinary(t testing.TB, bin string) string {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "coreportal")
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return to
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// migrateOnly prepares a database and data folder with `coreportal migrate`.
func migrateOnly(t testing.TB, dbURL, dataDir string) {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), "migrate")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "CORE_DATA_DIR="+dataDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
}

// setSetting writes a settings row straight into a server's database.
func setSetting(t testing.TB, dbURL, dataDir, key, value string) {
	t.Helper()
	db, err := store.Open(context.Background(), dbURL, filepath.Join(dataDir, "core.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if value == "" {
		_, err = db.W(ctx).ExecContext(ctx, "DELETE FROM settings WHERE key = ?", key)
	} else {
		_, err = db.W(ctx).ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value, time.Now().UTC())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// getJSON calls the API and tolerates a server that is restarting: it
// returns ok=false instead of failing.
func getJSON(t *testing.T, c *kit.Client, path string, out any) (int, bool) {
	req, _ := http.NewRequest("GET", c.S.URL+"/api/v1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.S.HTTPClient(t).Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&env) != nil {
		return resp.StatusCode, false
	}
	return resp.StatusCode, resp.StatusCode == 200 && json.Unmarshal(env.Data, out) == nil
}

// waitUpdateJob polls an update job through restarts until it ends.
func waitUpdateJob(t *testing.T, c *kit.Client, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(150 * time.Second) // a restart on a busy machine included
	var j map[string]any
	for time.Now().Before(deadline) {
		var cur map[string]any
		if _, ok := getJSON(t, c, "/admin/update/jobs/"+id, &cur); ok {
			j = cur
			if j["status"] == "succeeded" || j["status"] == "failed" {
				return j
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("update job %s did not end: %v", id, j)
	return nil
}

// serverVersion waits until the service answers and returns its version.
func serverVersion(t *testing.T, c *kit.Client) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var v struct{ Version string }
		if _, ok := getJSON(t, c, "/system/version", &v); ok {
			return v.Version
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the service does not answer GET /system/version")
	return ""
}

func ed25519Key() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	return ed25519.GenerateKey(rand.Reader)
}
