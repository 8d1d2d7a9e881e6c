package test

import (
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"coreportal/test/kit"
)

// scrape reads the /metrics of addr as gauge values by name.
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	// /metrics is not an operation of the OpenAPI document: a plain client
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		if f.GetType() == dto.MetricType_GAUGE && len(f.GetMetric()) == 1 {
			out[name] = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return out
}

// monitorBlock reads data of /health or /ready.
func monitorBlock(t *testing.T, s *kit.Server, path string) map[string]any {
	t.Helper()
	return s.Anon().Do(t, "GET", s.URL+path, nil).Expect(t, 200).Map(t)
}

// TestLicenceMonitoring: with a trial that has 3 days left, /metrics carries
// the licence gauges, /health and /ready the licence block and the version
// (still 200), and writes carry a Warning header; reads do not.
func TestLicenceMonitoring(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dataDir := b.DatabaseURL(t), t.TempDir()
			migrateOnly(t, dbURL, dataDir)
			// the licence clock: the trial began 27 days and an hour ago
			setSetting(t, dbURL, dataDir, "first_start_at", time.Now().Add(-27*24*time.Hour-time.Hour).UTC().Format(time.RFC3339))
			metrics := kit.FreePort(t)
			s := kit.StartWith(t, dbURL, dataDir, "serve", "CORE_METRICS_ADDR="+metrics)

			for _, path := range []string{"/health", "/ready"} {
				d := monitorBlock(t, s, path)
				lic, _ := d["licence"].(map[string]any)
				if lic["mode"] != "trial" || lic["valid"] != true || lic["daysRemaining"] != 3.0 || lic["expiresAt"] == "" || d["version"] == "" || d["version"] == nil {
					t.Fatalf("%s: %v", path, d)
				}
			}
			if d := monitorBlock(t, s, "/ready"); d["database"] != "ok" {
				t.Fatalf("ready checks %v", d)
			}

			m := scrape(t, metrics)
			if m["coreportal_licence_valid"] != 1 || m["coreportal_licence_days_remaining"] != 3 {
				t.Fatalf("licence gauges: valid %v, days %v", m["coreportal_licence_valid"], m["coreportal_licence_days_remaining"])
			}

			admin := s.Admin(t)
			w := admin.Do(t, "POST", "/nodes", map[string]any{"slug": "news", "title": "News"}).Expect(t, 201).Header.Get("Warning")
			if !strings.HasPrefix(w, `299 - "`) || !strings.Contains(w, "expires in 3 days") {
				t.Fatalf("Warning on a write: %q", w)
			}
			if w := admin.Do(t, "GET", "/nodes", nil).Expect(t, 200).Header.Get("Warning"); w != "" {
				t.Fatalf("Warning on a read: %q", w)
			}
		})
	}
}

// TestLicenceMonitoringFarFromExpiry: a trial with 30 days left warns nobody.
func TestLicenceMonitoringFarFromExpiry(t *testing.T) {
	t.Parallel()
	s := kit.Start(t, kit.Backends(t)[0])
	if w := s.Admin(t).Do(t, "POST", "/nodes", map[string]any{"slug": "news", "title": "News"}).Expect(t, 201).Header.Get("Warning"); w != "" {
		t.Fatalf("Warning with 30 days left: %q", w)
	}
}

// TestOperationsMetricsAndAccessLog: the access line names the client
// (X-Forwarded-For of a trusted proxy), the user id, the route template, the
// status, the bytes and the duration; /metrics carries the maintenance state,
// the backup age and the search index size.
func TestOperationsMetricsAndAccessLog(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			metrics := kit.FreePort(t)
			s := kit.Start(t, b, "CORE_METRICS_ADDR="+metrics, "CORE_ACCESS_LOG=true", "CORE_TRUSTED_PROXIES=127.0.0.1")
			admin := s.Admin(t)
			me := admin.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
			node := admin.Do(t, "POST", "/nodes", map[string]any{"slug": "ops", "title": "Ops"}).Expect(t, 201).Map(t)

			req, _ := http.NewRequest("GET", s.URL+"/api/v1/nodes/"+node["id"].(string), nil)
			req.Header.Set("Authorization", "Bearer "+admin.Token)
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
			req.Header.Set("X-Request-Id", "access-line-probe")
			admin.Send(t, req).Expect(t, 200)
			line := waitAccessLine(t, s, "access-line-probe")
			if line["client"] != "203.0.113.9" || line["user"] != me["id"] || line["route"] != "/api/v1/nodes/{id}" || line["method"] != "GET" ||
				line["status"] != 200.0 || line["bytes"].(float64) <= 0 || line["ms"] == nil || line["path"] != "/api/v1/nodes/"+node["id"].(string) {
				t.Fatalf("access line %v", line)
			}

			m := scrape(t, metrics)
			if m["coreportal_maintenance"] != 0 || !math.IsInf(m["coreportal_backup_age_seconds"], 1) || m["coreportal_search_index_entries"] < 1 {
				t.Fatalf("before a backup: maintenance %v, backup age %v, index %v", m["coreportal_maintenance"], m["coreportal_backup_age_seconds"], m["coreportal_search_index_entries"])
			}
			r := runCLI(t, "", nil, "backup", "--to", filepath.Join(t.TempDir(), "b.tar"), "--data-dir", s.DataDir, "--database-url", s.DBURL)
			if r.code != 0 {
				t.Fatalf("backup: %s %s", r.stdout, r.stderr)
			}
			if age := scrape(t, metrics)["coreportal_backup_age_seconds"]; age < 0 || age > 120 {
				t.Fatalf("backup age after a backup: %v", age)
			}
		})
	}
}

// waitAccessLine returns the access line (message "http") of a request id.
func waitAccessLine(t *testing.T, s *kit.Server, requestID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, l := range strings.Split(s.Logs(), "\n") {
			if !strings.Contains(l, requestID) {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "http" {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access line for %s:\n%s", requestID, s.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
