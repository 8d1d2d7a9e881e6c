package test

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestAdmin covers the administration capability (issue #14) on one server
// per backend: audit log, application log, dashboard, metrics.
func TestAdmin(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			metricsAddr := kit.FreePort(t)
			s := kit.Start(t, b, "CORE_ACCESS_LOG=true", "CORE_METRICS_ADDR="+metricsAddr)
			adm := s.Admin(t)
			t.Run("audit", func(t *testing.T) { testAudit(t, s, adm) })
			t.Run("logs", func(t *testing.T) { testAppLog(t, s, adm) })
			t.Run("dashboard", func(t *testing.T) { testDashboard(t, s, adm, b.Name) })
			t.Run("metrics", func(t *testing.T) { testMetrics(t, adm, metricsAddr) })
		})
	}
}

func auditRows(t *testing.T, c *kit.Client, query string) ([]map[string]any, int) {
	t.Helper()
	r := c.Do(t, "GET", "/admin/audit"+query, nil).Expect(t, 200)
	var rows []map[string]any
	r.Into(t, &rows)
	return rows, int(r.Meta["total"].(float64))
}

func testAudit(t *testing.T, s *kit.Server, adm *kit.Client) {
	start := time.Now().UTC().Add(-time.Second).Format(time.RFC3339)
	s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "ghost", "password": "wrong-password"}).Expect(t, 401)
	user, userID := s.CreateUser(t, "auditee", false)

	// failed sign-in: login tried and address, never the password
	rows, total := auditRows(t, adm, "?action=auth.sign_in_failed")
	if total != 1 || rows[0]["actorLogin"] != "ghost" || rows[0]["outcome"] != "failure" || rows[0]["actorAddress"] == "" {
		t.Fatalf("failed sign-in: %d %v", total, rows)
	}
	if raw, _ := json.Marshal(rows); strings.Contains(string(raw), "wrong-password") {
		t.Fatalf("password in audit: %s", raw)
	}
	// successful sign-in of the new user, found by actor login and by id
	for _, q := range []string{"?action=auth.sign_in&actor=auditee", "?action=auth.sign_in&actor=" + userID, "?action=auth.&actor=AUDITEE"} {
		rows, total = auditRows(t, adm, q)
		if total != 1 || rows[0]["actorId"] != userID || rows[0]["resourceId"] != userID {
			t.Fatalf("%s: %d %v", q, total, rows)
		}
	}
	// resource filters and time window
	rows, _ = auditRows(t, adm, "?resourceType=user&resourceId="+userID+"&from="+url.QueryEscape(start))
	if len(rows) == 0 {
		t.Fatal("resource filter found nothing")
	}
	if _, total = auditRows(t, adm, "?to=2000-01-01T00:00:00Z"); total != 0 {
		t.Fatalf("to in the past: %d", total)
	}
	// changes made through the services: user, ACL, node delete, settings, service
	adm.Do(t, "PATCH", "/admin/users/"+userID, map[string]any{"displayName": "Renamed"}).Expect(t, 200)
	rows, _ = auditRows(t, adm, "?action=user.update&resourceId="+userID)
	if len(rows) != 1 || rows[0]["actorLogin"] != "admin" || rows[0]["details"].(map[string]any)["after"].(map[string]any)["displayName"] != "Renamed" {
		t.Fatalf("user update: %v", rows)
	}
	node := mkNode(t, adm, "", "audited")
	rec := grant(t, s, "node", node, "user", userID, "edit")
	adm.Do(t, "DELETE", "/permissions/"+rec, nil).Expect(t, 200)
	rows, _ = auditRows(t, adm, "?action=acl.&resourceType=node&resourceId="+node)
	if len(rows) != 2 || rows[0]["action"] != "acl.revoke" || rows[1]["action"] != "acl.grant" {
		t.Fatalf("acl: %v", rows)
	}
	adm.Do(t, "DELETE", "/nodes/"+node, nil).Expect(t, 200)
	if _, n := auditRows(t, adm, "?action=resource.delete&resourceType=node&resourceId="+node); n != 1 {
		t.Fatalf("node delete not audited")
	}
	adm.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": "smtp.example.com", "port": 25, "user": "mailer", "password": "smtp-secret-pw", "fromEmail": "portal@example.com"}).Expect(t, 200)
	r := adm.Do(t, "GET", "/admin/audit?action=settings.update&resourceId=notifications", nil).Expect(t, 200)
	if !strings.Contains(string(r.Raw), "smtp.example.com") || strings.Contains(string(r.Raw), "smtp-secret-pw") {
		t.Fatalf("settings audit must show the change and never the secret: %s", r.Raw)
	}
	adm.Do(t, "PATCH", "/services/jobs-cleanup", map[string]any{"cronExpression": "0 3 * * *", "cronEnabled": true}).Expect(t, 200)
	if _, n := auditRows(t, adm, "?action=service.update&resourceType=service&resourceId=jobs-cleanup"); n != 1 {
		t.Fatal("service change not audited")
	}
	// paging
	r = adm.Do(t, "GET", "/admin/audit?limit=1&page=2", nil).Expect(t, 200)
	if r.Meta["limit"].(float64) != 1 || r.Meta["page"].(float64) != 2 {
		t.Fatalf("meta %v", r.Meta)
	}
	// bad input
	for _, q := range []string{"?from=yesterday", "?to=2020-13-01", "?from=2021-01-02T00:00:00Z&to=2021-01-01T00:00:00Z", "?limit=0", "?page=x"} {
		adm.Do(t, "GET", "/admin/audit"+q, nil).Expect(t, 400, "VALIDATION_ERROR")
	}
	adm.Do(t, "GET", "/admin/audit/export?format=xml", nil).Expect(t, 400, "VALIDATION_ERROR")
	// administrators only
	user.Do(t, "GET", "/admin/audit", nil).Expect(t, 403, "FORBIDDEN")
	user.Do(t, "GET", "/admin/audit/export", nil).Expect(t, 403, "FORBIDDEN")
	// append-only: no write operation exists
	for _, m := range []string{"POST", "DELETE", "PUT", "PATCH"} {
		if st := adm.Do(t, m, "/admin/audit", nil).Status; st < 400 {
			t.Fatalf("%s /admin/audit answered %d", m, st)
		}
	}
	// export json and csv
	r = adm.Do(t, "GET", "/admin/audit/export?format=json&action=auth.", nil)
	if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export json: %d %v", r.Status, r.Header)
	}
	var exp []map[string]any
	if err := json.Unmarshal(r.Raw, &exp); err != nil || len(exp) < 3 {
		t.Fatalf("export json %v: %s", err, r.Raw)
	}
	r = adm.Do(t, "GET", "/admin/audit/export?format=csv&actor=ghost", nil)
	recs, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
	if r.Status != 200 || err != nil || len(recs) != 2 || recs[1][1] != "ghost" {
		t.Fatalf("export csv %d %v: %q", r.Status, err, recs)
	}
}
