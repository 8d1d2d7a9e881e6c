package test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// logRows lists /admin/logs with query and returns rows and total.
func logRows(t *testing.T, c *kit.Client, query string) ([]map[string]any, int) {
	t.Helper()
	r := c.Do(t, "GET", "/admin/logs"+query, nil).Expect(t, 200)
	var rows []map[string]any
	r.Into(t, &rows)
	return rows, int(r.Meta["total"].(float64))
}

// waitLogs polls until query finds at least n records (the writer is asynchronous).
func waitLogs(t *testing.T, c *kit.Client, query string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, total := logRows(t, c, query)
		if total >= n {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d records, want %d", query, total, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// failSignIn sends a wrong sign-in whose login is logged, with a request id.
func failSignIn(t *testing.T, s *kit.Server, login, requestID string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"login": login, "password": "not-the-password"})
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/login", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", requestID)
	s.Anon().Send(t, req).Expect(t, 401)
}

func testAppLog(t *testing.T, s *kit.Server, adm *kit.Client) {
	start := time.Now().UTC().Add(-time.Second)
	// Users type secrets into the login box: the logged login must be masked.
	failSignIn(t, s, "jane.doe@example.com", "req-email")
	failSignIn(t, s, "password=Hunter2secret", "req-password")
	failSignIn(t, s, "Bearer abcdefghijklmnopqrstuvwxyz", "req-bearer")
	for id, gone := range map[string]string{"req-email": "jane.doe", "req-password": "Hunter2secret", "req-bearer": "abcdefghijklmnopqrstuvwxyz"} {
		rows := waitLogs(t, adm, "?correlationId="+id, 1) // the sign-in record (request lines are not stored by default)
		raw, _ := json.Marshal(rows)
		if strings.Contains(string(raw), gone) || !strings.Contains(string(raw), "[REDACTED]") && id != "req-email" {
			t.Fatalf("%s not redacted: %s", id, raw)
		}
		if id == "req-email" && !strings.Contains(string(raw), "j***@example.com") {
			t.Fatalf("e-mail not masked: %s", raw)
		}
		for _, r := range rows {
			if r["process"] != "api" || r["correlationId"] != id || r["instance"] == "" {
				t.Fatalf("record %v", r)
			}
		}
	}

	t.Run("filters", func(t *testing.T) {
		rows, total := logRows(t, adm, "?correlationId=req-email&category=app")
		if total != 1 || rows[0]["message"] != "sign-in failed" || rows[0]["level"] != "info" {
			t.Fatalf("category app: %d %v", total, rows)
		}
		if _, total = logRows(t, adm, "?correlationId=req-email&category=http"); total != 0 {
			t.Fatalf("request lines below warn are stored only when includeCategories names http: %d", total)
		}
		if _, total = logRows(t, adm, "?correlationId=req-email&level=warn"); total != 0 {
			t.Fatalf("level warn and above: %d", total)
		}
		if _, total = logRows(t, adm, "?correlationId=req-email&level=info,debug"); total != 1 {
			t.Fatalf("level list: %d", total)
		}
		if _, total = logRows(t, adm, "?q=SIGN-IN%20FAILED&from="+url.QueryEscape(start.Format(time.RFC3339Nano))); total < 3 {
			t.Fatalf("q: %d", total)
		}
		if _, total = logRows(t, adm, "?q=j***@example"); total < 1 {
			t.Fatalf("q in attributes: %d", total)
		}
		if _, total = logRows(t, adm, "?to=2000-01-01T00:00:00Z"); total != 0 {
			t.Fatalf("to: %d", total)
		}
		if _, total = logRows(t, adm, "?process=worker&correlationId=req-email"); total != 0 {
			t.Fatalf("process: %d", total)
		}
		r := adm.Do(t, "GET", "/admin/logs?limit=2&page=1", nil).Expect(t, 200)
		if r.Meta["limit"].(float64) != 2 || r.Meta["totalPages"].(float64) < 2 {
			t.Fatalf("paging %v", r.Meta)
		}
		for _, q := range []string{"?level=verbose", "?process=web", "?from=x", "?from=2021-01-02&to=2021-01-01", "?limit=501", "?page=0"} {
			adm.Do(t, "GET", "/admin/logs"+q, nil).Expect(t, 400, "VALIDATION_ERROR")
		}
	})

	t.Run("settings", func(t *testing.T) {
		set := adm.Do(t, "GET", "/admin/logs/settings", nil).Expect(t, 200).Map(t)
		if set["minLevel"] != "info" || set["redactEnabled"] != true || set["retentionDays"].(float64) != 30 {
			t.Fatalf("defaults %v", set)
		}
		st := set["stats"].(map[string]any)
		if st["written"].(float64) < 1 || st["capacity"].(float64) < 1 {
			t.Fatalf("stats %v", st)
		}
		for _, b := range []map[string]any{{"minLevel": "verbose"}, {"retentionDays": 0}, {"maxRows": 5}, {"maxSizeMb": -1}, {"includeCategories": []string{"Not A Word"}}, {"unknown": 1}} {
			adm.Do(t, "PUT", "/admin/logs/settings", b).Expect(t, 400, "VALIDATION_ERROR")
		}
		got := adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"minLevel": "debug"}).Expect(t, 200).Map(t)
		if got["minLevel"] != "debug" || got["retentionDays"].(float64) != 30 {
			t.Fatalf("partial put %v", got)
		}
		// debug records of a job carry its id and the worker process
		run := adm.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 202).Map(t)
		jobID := run["jobId"].(string)
		rows := waitLogs(t, adm, "?jobId="+jobID, 1)
		if rows[0]["process"] != "worker" || rows[0]["category"] != "job" {
			t.Fatalf("job record %v", rows[0])
		}
		// categories: only job records are written while includeCategories=[job]
		adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"includeCategories": []string{"job"}, "minLevel": "info"}).Expect(t, 200)
		failSignIn(t, s, "someone-else", "req-filtered")
		time.Sleep(1500 * time.Millisecond)
		if _, total := logRows(t, adm, "?correlationId=req-filtered"); total != 0 {
			t.Fatalf("category filter let %d records through", total)
		}
		// redaction off keeps the text as it was
		adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"includeCategories": []string{}, "redactEnabled": false}).Expect(t, 200)
		failSignIn(t, s, "plain@example.com", "req-plain")
		rows = waitLogs(t, adm, "?correlationId=req-plain&category=app", 1)
		if raw, _ := json.Marshal(rows); !strings.Contains(string(raw), "plain@example.com") {
			t.Fatalf("redaction off: %s", raw)
		}
		adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"redactEnabled": true}).Expect(t, 200)
		if rows, _ := auditRows(t, adm, "?action=applog.settings"); len(rows) < 4 {
			t.Fatalf("settings changes not audited: %v", rows)
		}
	})

	t.Run("export", func(t *testing.T) {
		r := adm.Do(t, "GET", "/admin/logs/export?format=txt&correlationId=req-email", nil)
		lines := strings.Split(strings.TrimSpace(string(r.Raw)), "\n")
		if r.Status != 200 || len(lines) != 1 || !strings.Contains(lines[0], "correlationId=req-email") || !strings.Contains(r.Header.Get("Content-Disposition"), ".txt") {
			t.Fatalf("txt export %d %v: %q", r.Status, r.Header, r.Raw)
		}
		r = adm.Do(t, "GET", "/admin/logs/export?format=json&level=info", nil)
		var rows []map[string]any
		if err := json.Unmarshal(r.Raw, &rows); err != nil || r.Status != 200 || len(rows) < 3 {
			t.Fatalf("json export %v: %s", err, r.Raw)
		}
		adm.Do(t, "GET", "/admin/logs/export?format=csv", nil).Expect(t, 400, "VALIDATION_ERROR")
	})

	t.Run("purge and clear", func(t *testing.T) {
		adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"includeCategories": []string{"http"}}).Expect(t, 200)
		for i := 0; i < 110; i++ {
			s.Anon().Do(t, "GET", "/health", nil)
		}
		rows := waitLogs(t, adm, "?category=http", 110)
		if rows[0]["message"] != "http" || rows[0]["attrs"].(map[string]any)["path"] == nil {
			t.Fatalf("request line %v", rows[0])
		}
		adm.Do(t, "PUT", "/admin/logs/settings", map[string]any{"maxRows": 100}).Expect(t, 200)
		p := adm.Do(t, "POST", "/admin/logs/purge", nil).Expect(t, 200).Map(t)
		// left counts the rows after the purge, and the request lines
		// written meanwhile (the purge's own among them) may add a few.
		if left := p["left"].(float64); p["byRows"].(float64) < 20 || left < 100 || left > 105 {
			t.Fatalf("purge %v", p)
		}
		c := adm.Do(t, "POST", "/admin/logs/clear", nil).Expect(t, 200).Map(t)
		if c["deleted"].(float64) < 100 {
			t.Fatalf("clear %v", c)
		}
		if _, total := logRows(t, adm, "?correlationId=req-email"); total != 0 {
			t.Fatalf("clear left %d", total)
		}
		for _, a := range []string{"applog.purge", "applog.clear"} {
			if _, n := auditRows(t, adm, "?action="+a); n != 1 {
				t.Fatalf("%s audited %d times", a, n)
			}
		}
		user, _ := s.CreateUser(t, "logreader", false)
		for _, op := range [][2]string{{"GET", "/admin/logs"}, {"GET", "/admin/logs/settings"}, {"PUT", "/admin/logs/settings"}, {"POST", "/admin/logs/purge"}, {"POST", "/admin/logs/clear"}, {"GET", "/admin/logs/export"}} {
			user.Do(t, op[0], op[1], map[string]any{}).Expect(t, 403, "FORBIDDEN")
		}
	})
}
