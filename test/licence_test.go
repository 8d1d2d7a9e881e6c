package test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/internal/licence"
	"coreportal/test/kit"
)

// TestLicenceActivation: status fields, admin-only access, every refusal of
// a key over HTTP (400 naming the reason, nothing changed), activation from
// key-file content, release settings from a RELEASE file, the runner token
// on /internal while it is unset, and the blocked update reasons.
func TestLicenceActivation(t *testing.T) {
	t.Parallel()
	vendor := newVendor(t)
	office := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && r.URL.Path == "/healthcheck":
			_, _ = w.Write([]byte("true"))
		case r.Method == "POST" && r.URL.Path == "/coauthoring/CommandService.ashx":
			_, _ = w.Write([]byte(`{"error":0,"version":"8.2.1"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer office.Close()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			releaseFile := filepath.Join(t.TempDir(), "RELEASE")
			if err := os.WriteFile(releaseFile, []byte("\n1.2.3\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := kit.Start(t, b, append(vendorKeyEnv(), "CORE_RELEASE_FILE="+releaseFile, "CORE_VENDOR_URL="+vendor.URL, "CORE_OFFICE_URL="+office.URL)...)
			admin := s.Admin(t)
			user, _ := s.CreateUser(t, "lina", false)
			s.Anon().Do(t, "GET", "/admin/license", nil).Expect(t, 401, "UNAUTHORIZED")
			user.Do(t, "GET", "/admin/license", nil).Expect(t, 403, "FORBIDDEN")
			user.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": "x.y"}).Expect(t, 403, "FORBIDDEN")
			user.Do(t, "GET", "/admin/product", nil).Expect(t, 403, "FORBIDDEN")

			st := admin.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)
			sum := sha256.Sum256([]byte(st["installId"].(string)))
			if st["mode"] != "trial" || st["valid"] != true || st["daysRemaining"] != 30.0 || st["installBinding"] != hex.EncodeToString(sum[:]) ||
				st["installedChannel"] != "stable" || st["installedPlatform"] != testPlatform() || st["expiresAt"] == nil {
				t.Fatalf("trial status %v", st)
			}
			if m := st["modules"].([]any); len(m) != 1 || m[0] != "*" {
				t.Fatalf("trial modules %v", st["modules"])
			}
			binding := st["installBinding"].(string)

			_, otherPriv, _ := ed25519Key()
			forged, _ := licence.Sign(licence.Payload{LicenseID: "F", ExpiresAt: time.Now().Add(time.Hour), InstallBinding: binding}, otherPriv)
			for _, c := range []struct{ name, key, reason string }{
				{"garbage", "garbage!", "format"},
				{"comments only", "# nothing here\n", "format"},
				{"bad signature", forged, "signature"},
				{"expired", signLicence(t, binding, -1, nil), "expired"},
				{"wrong binding", signLicence(t, strings.Repeat("ab", 32), 30, nil), "installBinding"},
				{"wrong channel", signLicence(t, binding, 30, func(p *licence.Payload) { p.Channel = "beta" }), "channel"},
				{"wrong platform", signLicence(t, binding, 30, func(p *licence.Payload) { p.Platform = "plan9-arm" }), "platform"},
			} {
				r := admin.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": c.key}).Expect(t, 400, "VALIDATION_ERROR")
				if r.Error.Details["reason"] != c.reason || r.Error.Details["field"] != "licenseKey" {
					t.Fatalf("%s: %s", c.name, r.Raw)
				}
			}
			admin.Do(t, "POST", "/admin/license/activate", `{}`).Expect(t, 400, "VALIDATION_ERROR")
			admin.Do(t, "POST", "/admin/license/activate", `{"licenseKey": 5}`).Expect(t, 400, "VALIDATION_ERROR")
			if _, err := os.Stat(filepath.Join(s.DataDir, "license.key")); !os.IsNotExist(err) {
				t.Fatal("a refused key was stored")
			}
			if admin.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)["mode"] != "trial" {
				t.Fatal("a refused key changed the status")
			}

			// a key file's content: comments and blank lines around the key
			content := "# Core Portal licence\n# customer: ACME\n\n" + signLicence(t, "*", 365, nil) + "\n"
			res := admin.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": content}).Expect(t, 200).Map(t)
			lic := res["license"].(map[string]any)
			if lic["mode"] != "licensed" || lic["valid"] != true || lic["customer"] != "ACME Corp" || lic["channel"] != "stable" ||
				res["storagePath"] != filepath.Join(s.DataDir, "license.key") || res["message"] == "" {
				t.Fatalf("activation %v", res)
			}
			if m := lic["modules"].([]any); len(m) != 1 || m[0] != "vendor.helpdesk.*" {
				t.Fatalf("modules %v", lic["modules"])
			}
			// activations are audited, refusals with their reason, never the key
			audit := admin.Do(t, "GET", "/admin/audit?action=licence.activate", nil).Expect(t, 200)
			if !strings.Contains(string(audit.Raw), `"outcome":"success"`) || !strings.Contains(string(audit.Raw), `"reason":"signature"`) ||
				strings.Contains(string(audit.Raw), strings.Split(licence.KeyText(content), ".")[1]) {
				t.Fatalf("licence activations not audited as expected: %s", audit.Raw)
			}
			fi, err := os.Stat(filepath.Join(s.DataDir, "license.key"))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("key file %v %v", fi, err)
			}
			prod := admin.Do(t, "GET", "/admin/product", nil).Expect(t, 200).Map(t)
			if prod["releaseVersion"] != "1.2.3" || prod["releaseSource"] != "file" || prod["version"] == "" || prod["license"].(map[string]any)["mode"] != "licensed" {
				t.Fatalf("product %v", prod)
			}

			// release settings: the RELEASE file wins and cannot be edited
			rs := admin.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200).Map(t)
			if rs["installedReleaseVersion"] != "1.2.3" || rs["installedReleaseSource"] != "file" || rs["canEditInstalledVersion"] != false ||
				rs["releaseFilePath"] != releaseFile || rs["updateCheckUrl"] != vendor.URL+"/api/v1/releases/latest?channel=stable&platform="+testPlatform() ||
				rs["lastUpdateCheckAt"] != nil {
				t.Fatalf("release settings %v", rs)
			}
			admin.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "1.3.0"}).Expect(t, 409, "CONFLICT")
			os.Remove(releaseFile)
			admin.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "not a version"}).Expect(t, 400, "VALIDATION_ERROR")
			user.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "1.3.0"}).Expect(t, 403, "FORBIDDEN")
			rs = admin.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "1.3.0"}).Expect(t, 200).Map(t)
			if rs["installedReleaseVersion"] != "1.3.0" || rs["installedReleaseSource"] != "database" || rs["canEditInstalledVersion"] != true {
				t.Fatalf("release settings after PUT %v", rs)
			}

			// update check: newer release, but no runner
			chk := admin.Do(t, "POST", "/admin/update/check", nil).Expect(t, 200).Map(t)
			if chk["installedReleaseVersion"] != "1.3.0" || chk["latestVersion"] != "2.0.0" || chk["updateAvailable"] != true || chk["upToDate"] != false ||
				chk["licenseOk"] != true || chk["canUpgradeOnline"] != false || chk["upgradeBlockedReason"] != "runner_offline" ||
				len(chk["whatsNew"].([]any)) != 1 || len(chk["fixes"].([]any)) != 1 || chk["updatesUrl"] != vendor.URL+"/releases/2.0.0" {
				t.Fatalf("check %v", chk)
			}
			r := admin.Do(t, "POST", "/admin/update/start", nil).Expect(t, 409, "UPDATE_BLOCKED")
			if r.Error.Details["reason"] != "runner_offline" {
				t.Fatalf("start %s", r.Raw)
			}
			rs = admin.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200).Map(t)
			if rs["lastKnownLatestVersion"] != "2.0.0" || rs["lastUpdateCheckAt"] == nil || rs["updatesPageUrl"] != vendor.URL+"/releases/2.0.0" {
				t.Fatalf("release settings after check %v", rs)
			}
			admin.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "2.0.0"}).Expect(t, 200)
			if chk := admin.Do(t, "POST", "/admin/update/check", nil).Expect(t, 200).Map(t); chk["upToDate"] != true || chk["upgradeBlockedReason"] != "no_newer_version" {
				t.Fatalf("check when up to date %v", chk)
			}
			run := admin.Do(t, "GET", "/admin/update/runner", nil).Expect(t, 200).Map(t)
			if run["runnerOnline"] != false || run["entitleUrl"] != vendor.URL+"/api/v1/entitle" || run["latestJob"] != nil || run["licenseOk"] != true {
				t.Fatalf("runner %v", run)
			}
			admin.Do(t, "GET", "/admin/update/jobs/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")
			admin.Do(t, "GET", "/admin/update/jobs/"+strings.Repeat("0", 8)+"-0000-0000-0000-000000000000", nil).Expect(t, 404, "NOT_FOUND")

			// CORE_UPDATE_RUNNER_TOKEN is unset here: every /internal request is refused
			for _, c := range []struct{ method, path, token string }{
				{"POST", "/internal/upgrade-queue/claim", ""},
				{"POST", "/internal/upgrade-queue/claim", "anything"},
				{"GET", "/internal/upgrade-queue/version", ""},
				{"PATCH", "/internal/upgrade-queue/" + strings.Repeat("0", 8) + "-0000-0000-0000-000000000000", "x"},
				{"GET", "/internal/unknown", ""},
				{"GET", "/internal", ""},
			} {
				req, _ := http.NewRequest(c.method, s.URL+"/api/v1"+c.path, strings.NewReader(`{"phase":"done"}`))
				req.Header.Set("Content-Type", "application/json")
				if c.token != "" {
					req.Header.Set("X-Core-Update-Token", c.token)
				}
				admin.Send(t, req).Expect(t, 401, "UNAUTHORIZED")
			}

			// the Office editor: health check and version of the document server
			off := admin.Do(t, "GET", "/admin/office/status", nil).Expect(t, 200).Map(t)
			if off["configured"] != true || off["reachable"] != true || off["version"] != "8.2.1" || off["url"] != office.URL {
				t.Fatalf("office %v", off)
			}
			user.Do(t, "GET", "/admin/office/status", nil).Expect(t, 403, "FORBIDDEN")
		})
	}
}

// TestLicenceReadOnlyRecovery: an expired trial makes the portal read-only (423 on
// writes, reads and sign-in work, background work pauses with a log line);
// `coreportal license activate --key-file` on the running portal's database
// makes it writable again without a restart.
func TestLicenceReadOnlyRecovery(t *testing.T) {
	t.Parallel()
	vendor := newVendor(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dataDir := b.DatabaseURL(t), t.TempDir()
			migrateOnly(t, dbURL, dataDir)
			setSetting(t, dbURL, dataDir, "first_start_at", time.Now().Add(-40*24*time.Hour).UTC().Format(time.RFC3339))
			env := append(vendorKeyEnv(), "CORE_VENDOR_URL="+vendor.URL)
			s := kit.StartWith(t, dbURL, dataDir, "serve", env...)
			admin := s.Admin(t) // signing in works while read-only
			st := admin.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)
			if st["mode"] != "expired" || st["valid"] != false || st["daysRemaining"] != 0.0 || !strings.Contains(st["message"].(string), "read-only") {
				t.Fatalf("status %v", st)
			}
			for _, path := range []string{"/health", "/ready"} { // read-only is not unready: still 200, the body says why
				lic, _ := monitorBlock(t, s, path)["licence"].(map[string]any)
				if lic["mode"] != "expired" || lic["valid"] != false || lic["daysRemaining"] != 0.0 {
					t.Fatalf("%s licence block %v", path, lic)
				}
			}
			r := admin.Do(t, "POST", "/nodes", map[string]any{"slug": "news", "title": "News"}).Expect(t, 423, "LICENSE_READ_ONLY")
			if !strings.Contains(r.Error.Message, "/admin/license/activate") {
				t.Fatalf("423 does not say how to recover: %s", r.Raw)
			}
			admin.Do(t, "PATCH", "/services/jobs-cleanup", map[string]any{"isEnabled": false}).Expect(t, 423, "LICENSE_READ_ONLY")
			admin.Do(t, "DELETE", "/nodes/"+strings.Repeat("0", 8)+"-0000-0000-0000-000000000000", nil).Expect(t, 423, "LICENSE_READ_ONLY")
			admin.Do(t, "GET", "/nodes", nil).Expect(t, 200)
			admin.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200)
			s.Anon().Do(t, "POST", "/nodes", map[string]any{"slug": "news", "title": "News"}).Expect(t, 401, "UNAUTHORIZED")
			chk := admin.Do(t, "POST", "/admin/update/check", nil).Expect(t, 200).Map(t)
			if chk["licenseOk"] != false || chk["upgradeBlockedReason"] != "license_invalid" {
				t.Fatalf("check %v", chk)
			}
			if r := admin.Do(t, "POST", "/admin/update/start", nil).Expect(t, 409, "UPDATE_BLOCKED"); r.Error.Details["reason"] != "license_invalid" {
				t.Fatal(r.Raw)
			}
			admin.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": signLicence(t, "*", -2, nil)}).Expect(t, 400, "VALIDATION_ERROR")
			waitLog(t, s, "background work paused")

			expiredFile := filepath.Join(t.TempDir(), "old.lic")
			if err := os.WriteFile(expiredFile, []byte(signLicence(t, "*", -1, nil)), 0o600); err != nil {
				t.Fatal(err)
			}
			refused := exec.Command(kit.Binary(t), "license", "activate", "--key-file", expiredFile)
			refused.Env = append(append(os.Environ(), "DATABASE_URL="+dbURL, "CORE_DATA_DIR="+dataDir), env...)
			if out, err := refused.CombinedOutput(); err == nil || !strings.Contains(string(out), "expired") {
				t.Fatalf("license activate with an expired key: %v\n%s", err, out)
			}
			keyFile := filepath.Join(t.TempDir(), "portal.lic")
			if err := os.WriteFile(keyFile, []byte("# issued by the vendor\n"+signLicence(t, st["installBinding"].(string), 30, nil)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(kit.Binary(t), "license", "activate", "--key-file", keyFile)
			cmd.Env = append(append(os.Environ(), "DATABASE_URL="+dbURL, "CORE_DATA_DIR="+dataDir), env...)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), `"licensed"`) {
				t.Fatalf("license activate: %v\n%s", err, out)
			}
			deadline := time.Now().Add(15 * time.Second)
			for admin.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)["mode"] != "licensed" {
				if time.Now().After(deadline) {
					t.Fatal("the running portal did not pick up the licence activated from the command line")
				}
				time.Sleep(200 * time.Millisecond)
			}
			admin.Do(t, "POST", "/nodes", map[string]any{"slug": "news", "title": "News"}).Expect(t, 201)
			waitLog(t, s, "background work resumed")
			status := exec.Command(kit.Binary(t), "license", "status")
			status.Env = cmd.Env
			if out, err := status.CombinedOutput(); err != nil || !strings.Contains(string(out), `"mode": "licensed"`) {
				t.Fatalf("license status: %v\n%s", err, out)
			}
		})
	}
}

func waitLog(t *testing.T, s *kit.Server, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.Logs(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("log line %q missing:\n%s", text, s.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLicenceCluster: two instances share the database and a Redis bus; a
// licence activated on one makes the other writable at once.
func TestLicenceCluster(t *testing.T) {
	t.Parallel()
	lockRedisBus(t)
	bus := "CORE_BUS_URL=" + redisURL(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dir := b.DatabaseURL(t), t.TempDir()
			migrateOnly(t, dbURL, dir)
			setSetting(t, dbURL, dir, "first_start_at", time.Now().Add(-31*24*time.Hour).UTC().Format(time.RFC3339))
			env := append(vendorKeyEnv(), bus)
			a := kit.StartWith(t, dbURL, dir, "serve", env...)
			other := kit.StartWith(t, dbURL, dir, "serve", env...)
			adminA, adminB := a.Admin(t), other.Admin(t)
			adminB.Do(t, "POST", "/nodes", map[string]any{"slug": "one", "title": "One"}).Expect(t, 423, "LICENSE_READ_ONLY")
			binding := adminA.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)["installBinding"].(string)
			adminA.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": signLicence(t, binding, 10, nil)}).Expect(t, 200)
			deadline := time.Now().Add(3 * time.Second) // well before the 10 s reload
			for {
				r := adminB.Do(t, "POST", "/nodes", map[string]any{"slug": "one", "title": "One"})
				if r.Status == 201 {
					break
				}
				if r.Status != 423 || time.Now().After(deadline) {
					t.Fatalf("instance B after activation on A: %d %s", r.Status, r.Raw)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
