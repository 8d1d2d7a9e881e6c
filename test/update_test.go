package test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// brokenRelease is a signed "release" that migrates but never starts.
const brokenRelease = "#!/bin/sh\ncase \"$1\" in migrate) exit 0;; esac\necho 'broken release: cannot start' >&2\nexit 3\n"

// TestUpdateRunner runs online updates end to end: a fake vendor site, the
// runner (`coreportal update-runner --serve`, which starts the service), and
// a second build of the service as 2.0.0. One run fails in each phase
// (entitle refused, download cut, bad signature, migration failure, new
// binary not healthy) and leaves the old version running; then a run whose
// download is cut once resumes, installs 2.0.0 and restarts on it.
func TestUpdateRunner(t *testing.T) {
	t.Parallel()
	v2 := secondBuild(t)
	v2bytes, err := os.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	vendor := newVendor(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			bin := copyBinary(t, kit.Binary(t))
			oldSHA := fileSHA(t, bin)
			// on SQLite a RELEASE file beside the binary names the release; on
			// PostgreSQL the database does (the assembly version until updated)
			releaseFile := filepath.Join(filepath.Dir(bin), "RELEASE")
			useFile := b.Name == "sqlite"
			if useFile {
				if err := os.WriteFile(releaseFile, []byte("1.0.0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dbURL, dataDir := b.DatabaseURL(t), t.TempDir()
			env := append(vendorKeyEnv(), "CORE_VENDOR_URL="+vendor.URL, "CORE_UPDATE_RUNNER_TOKEN=runner-secret", "CORE_UPDATE_POLL=200ms",
				"CORE_UPDATE_HEALTH_TIMEOUT=60s")
			s := kit.StartProcess(t, bin, dbURL, dataDir, []string{"update-runner", "--serve"}, env...)
			admin := s.Admin(t)
			oldVersion := serverVersion(t, admin)
			if oldVersion == "2.0.0" {
				t.Fatal("the first build already reports 2.0.0")
			}
			oldRelease := oldVersion
			if useFile {
				oldRelease = "1.0.0"
			}
			binding := admin.Do(t, "GET", "/admin/license", nil).Expect(t, 200).Map(t)["installBinding"].(string)
			key := signLicence(t, binding, 30, nil)
			admin.Do(t, "POST", "/admin/license/activate", map[string]any{"licenseKey": key}).Expect(t, 200)

			// the runner token guards every /internal route
			for _, tok := range []string{"", "wrong", "runner-secret-"} {
				req, _ := http.NewRequest("POST", s.URL+"/api/v1/internal/upgrade-queue/claim", nil)
				if tok != "" {
					req.Header.Set("X-Core-Update-Token", tok)
				}
				admin.Send(t, req).Expect(t, 401, "UNAUTHORIZED")
			}
			req, _ := http.NewRequest("GET", s.URL+"/api/v1/internal/nothing-here", nil)
			req.Header.Set("X-Core-Update-Token", "runner-secret")
			admin.Send(t, req).Expect(t, 404, "NOT_FOUND")

			deadline := time.Now().Add(10 * time.Second)
			for admin.Do(t, "GET", "/admin/update/runner", nil).Expect(t, 200).Map(t)["runnerOnline"] != true {
				if time.Now().After(deadline) {
					t.Fatal("runner not online")
				}
				time.Sleep(100 * time.Millisecond)
			}
			chk := admin.Do(t, "POST", "/admin/update/check", nil).Expect(t, 200).Map(t)
			if chk["canUpgradeOnline"] != true || chk["latestVersion"] != "2.0.0" || chk["upgradeBlockedReason"] != "" {
				t.Fatalf("check %v", chk)
			}

			run := func(mode string, pkg []byte) map[string]any {
				t.Helper()
				vendor.set(mode, "2.0.0", pkg)
				j := admin.Do(t, "POST", "/admin/update/start", nil).Expect(t, 202).Map(t)
				if _, n := auditRows(t, admin, "?action=update.start&resourceId="+j["id"].(string)); n != 1 {
					t.Fatalf("update start audited %d times", n)
				}
				if j["status"] != "queued" || j["phase"] != "queued" || j["fromVersion"] != oldRelease || j["toVersion"] != "2.0.0" || j["channel"] != "stable" {
					t.Fatalf("queued job %v", j)
				}
				r := admin.Do(t, "POST", "/admin/update/start", nil)
				if r.Status == 202 {
					// The runner may end a refused job within milliseconds:
					// a second start is then a new job, allowed only because
					// the first had ended before it was created.
					first := waitUpdateJob(t, admin, j["id"].(string))
					second := r.Map(t)
					ended, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(first["completedAt"]))
					created, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(second["createdAt"]))
					if ended.IsZero() || created.Before(ended) {
						t.Fatalf("second start while a job is active: %s (first %v)", r.Raw, first)
					}
					waitUpdateJob(t, admin, second["id"].(string))
					return first
				}
				if r.Status != 409 || r.Error.Code != "UPDATE_BLOCKED" || r.Error.Details["reason"] != "update_in_progress" {
					t.Fatalf("second start while a job is active: %s", r.Raw)
				}
				return waitUpdateJob(t, admin, j["id"].(string))
			}
			failing := []struct {
				name, mode, phase, message string
				pkg                        []byte
				probe                      bool
			}{
				{"entitle refused", "refuse", "failed", "no update entitlement", v2bytes, false},
				{"download cut", "cut", "failed", "download failed", v2bytes, false},
				{"bad signature", "badsig", "failed", "signature", v2bytes, false},
				{"migration failure", "", "failed", "migrations of the new release failed", v2bytes, true},
				{"not healthy", "", "failed", "did not become healthy", []byte(brokenRelease), false},
			}
			for _, c := range failing {
				if c.probe {
					setSetting(t, dbURL, dataDir, "update-probe-fail", "1")
				}
				j := run(c.mode, c.pkg)
				if c.probe {
					setSetting(t, dbURL, dataDir, "update-probe-fail", "")
				}
				if j["status"] != "failed" || j["phase"] != c.phase || !strings.Contains(j["message"].(string), c.message) || j["completedAt"] == nil {
					t.Fatalf("%s: job %v", c.name, j)
				}
				if v := serverVersion(t, admin); v != oldVersion {
					t.Fatalf("%s: version %s after the failed update, want %s", c.name, v, oldVersion)
				}
				// a release that does not start is rolled back and the previous
				// binary is seen running again (on SQLite its RELEASE file names
				// another version than the binary reports)
				if c.name == "not healthy" && !strings.Contains(j["message"].(string), "is running again") {
					t.Fatalf("%s: the rollback was not confirmed: %v", c.name, j["message"])
				}
				if fileSHA(t, bin) != oldSHA {
					t.Fatalf("%s: the binary was not restored", c.name)
				}
			}
			if last := vendor.entitled[len(vendor.entitled)-1]; last.LicenseKey != key || last.InstallBinding != binding ||
				last.Platform != testPlatform() || last.Channel != "stable" || last.CurrentVersion != oldRelease {
				t.Fatalf("entitle request %+v", last)
			}
			if rs := admin.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200).Map(t); rs["installedReleaseVersion"] != oldRelease {
				t.Fatalf("release after failures %v", rs)
			}

			// success: the first download is cut half way and resumes
			j := run("cutonce", v2bytes)
			if j["status"] != "succeeded" || j["phase"] != "done" || j["startedAt"] == nil || j["completedAt"] == nil {
				t.Fatalf("update job %v", j)
			}
			if v := serverVersion(t, admin); v != "2.0.0" {
				t.Fatalf("version after update %s", v)
			}
			if fileSHA(t, bin) != fileSHA(t, v2) || fileSHA(t, bin+".prev") != oldSHA {
				t.Fatal("binary not swapped, or previous binary not kept")
			}
			if vendor.gets < 2 {
				t.Fatalf("download did not resume: %d requests", vendor.gets)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(bin), ".coreportal-2.0.0.download")); !os.IsNotExist(err) {
				t.Fatal("staged download left behind")
			}
			rs := admin.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200).Map(t)
			if rs["installedReleaseVersion"] != "2.0.0" || (rs["installedReleaseSource"] == "file") != useFile {
				t.Fatalf("release after update %v", rs)
			}
			if b, _ := os.ReadFile(releaseFile); useFile && strings.TrimSpace(string(b)) != "2.0.0" {
				t.Fatalf("RELEASE file after update: %q", b)
			}
			runner := admin.Do(t, "GET", "/admin/update/runner", nil).Expect(t, 200).Map(t)
			if lj := runner["latestJob"].(map[string]any); lj["id"] != j["id"] || lj["status"] != "succeeded" {
				t.Fatalf("runner status %v", runner)
			}
			r := admin.Do(t, "POST", "/admin/update/start", nil).Expect(t, 409, "UPDATE_BLOCKED")
			if r.Error.Details["reason"] != "no_newer_version" {
				t.Fatalf("start when up to date %s", r.Raw)
			}
		})
	}
}
