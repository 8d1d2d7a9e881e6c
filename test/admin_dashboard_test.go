package test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"coreportal/test/kit"
)

func testDashboard(t *testing.T, s *kit.Server, adm *kit.Client, backend string) {
	for i := 0; i < 30; i++ {
		adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
	}
	d := adm.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 200).Map(t)
	load := d["load"].(map[string]any)
	h := load["http"].(map[string]any)
	if h["rpm"].(float64) < 30 || h["rps"].(float64) <= 0 || h["avg_latency_ms"].(float64) <= 0 || h["max_latency_msx"] == nil {
		t.Fatalf("load.http %v", h)
	}
	if lvl := load["level"]; lvl != "ok" && lvl != "warn" && lvl != "high" {
		t.Fatalf("level %v", lvl)
	}
	w := load["worker"].(map[string]any)
	if _, ok := w["completed_1m"]; !ok || w["pending"] == nil {
		t.Fatalf("load.worker %v", w)
	}
	if load["process"].(map[string]any)["memory_mb"].(float64) <= 1 {
		t.Fatalf("memory %v", load["process"])
	}
	if _, ok := load["postgres"].(map[string]any)["active_connections"]; !ok {
		t.Fatalf("%s: postgres.active_connections missing: %v", backend, load)
	}
	// the counters move under load
	for i := 0; i < 20; i++ {
		adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
	}
	d2 := adm.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 200).Map(t)
	if d2["load"].(map[string]any)["http"].(map[string]any)["rpm"].(float64) < h["rpm"].(float64)+20 {
		t.Fatalf("rpm did not move: %v then %v", h, d2["load"])
	}
	m := d["maintenance"].(map[string]any)
	for _, k := range []string{"searchIndex", "recycleBin", "backup", "adSync"} {
		if m[k] == nil {
			t.Fatalf("maintenance.%s missing: %v", k, m)
		}
	}
	if m["adSync"].(map[string]any)["available"] != false || m["adSync"].(map[string]any)["status"] != "not configured" {
		t.Fatalf("adSync %v", m["adSync"])
	}
	if _, ok := m["recycleBin"].(map[string]any)["records"]; !ok {
		t.Fatalf("recycleBin %v", m["recycleBin"])
	}
	infra := d["infrastructure"].(map[string]any)
	db := infra["database"].(map[string]any)
	if db["kind"] != backend || db["version"] == "" || infra["instancesSeen"].(float64) < 1 || infra["bus"] != "memory" || infra["blobStore"] != "local" {
		t.Fatalf("infrastructure %v", infra)
	}
	if len(d["audit"].([]any)) == 0 || d["recentErrors"] == nil || d["jobs"] == nil || d["services"].(map[string]any)["total"].(float64) < 5 {
		t.Fatalf("dashboard %v", d)
	}
	user, _ := s.CreateUser(t, "dashviewer", false)
	user.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 403, "FORBIDDEN")
}

func testMetrics(t *testing.T, adm *kit.Client, addr string) {
	me := adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
	adm.Do(t, "GET", "/admin/users/"+me["id"].(string), nil).Expect(t, 200)
	adm.Do(t, "GET", "/no/such/route/12345", nil).Expect(t, 404)
	run := adm.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 202).Map(t)
	waitJob(t, adm, run["jobId"].(string), "succeeded")

	var fams map[string]*dto.MetricFamily
	deadline := time.Now().Add(10 * time.Second)
	for {
		// /metrics is not an operation of the OpenAPI document: a plain client
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err = p.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("parse /metrics: %v", err)
		}
		if fams["core_job_duration_seconds"] != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, name := range []string{"core_http_request_duration_seconds", "core_job_duration_seconds", "core_jobs_pending", "core_sse_clients",
		"core_db_open_connections", "core_applog_dropped_total", "go_goroutines", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Fatalf("metric %s missing", name)
		}
	}
	labels := func(m *dto.Metric) map[string]string {
		out := map[string]string{}
		for _, l := range m.GetLabel() {
			out[l.GetName()] = l.GetValue()
		}
		return out
	}
	found := map[string]bool{}
	for _, m := range fams["core_http_request_duration_seconds"].GetMetric() {
		l := labels(m)
		if strings.Contains(l["route"], me["id"].(string)) || strings.Contains(l["route"], "12345") {
			t.Fatalf("raw path in a route label: %v", l)
		}
		found[l["route"]+" "+l["method"]+" "+l["status"]] = m.GetHistogram().GetSampleCount() > 0
	}
	for _, want := range []string{"GET /api/v1/auth/me GET 2xx", "GET /api/v1/admin/users/{id} GET 2xx", "unmatched GET 4xx"} {
		if !found[want] {
			t.Fatalf("series %q missing: %v", want, found)
		}
	}
	ok := false
	for _, m := range fams["core_job_duration_seconds"].GetMetric() {
		l := labels(m)
		if l["type"] == "jobs.cleanup" && l["outcome"] == "succeeded" && m.GetHistogram().GetSampleCount() >= 1 {
			ok = true
		}
	}
	if !ok {
		t.Fatalf("jobs.cleanup run not counted: %v", fams["core_job_duration_seconds"])
	}
}
