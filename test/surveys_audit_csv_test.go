package test

import (
	"encoding/csv"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestSurveysAuditCSVInjection: the audit CSV export neutralises text a
// spreadsheet would run as a formula (here a failed sign-in's login), like
// the survey XLSX export does.
func TestSurveysAuditCSVInjection(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		login := `=HYPERLINK("http://evil.example/","click")`
		s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": login, "password": "wrong-password"}).Expect(t, 401)
		r := s.Admin(t).Do(t, "GET", "/admin/audit/export?format=csv&action=auth.sign_in_failed", nil)
		recs, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
		if r.Status != 200 || err != nil || len(recs) < 2 {
			t.Fatalf("export csv %d %v: %q", r.Status, err, recs)
		}
		found := false
		for _, rec := range recs[1:] {
			for _, cell := range rec {
				if strings.HasPrefix(cell, "=") || strings.HasPrefix(cell, "+") || strings.HasPrefix(cell, "@") {
					t.Fatalf("formula cell %q in %q", cell, rec)
				}
				found = found || cell == "'"+login
			}
		}
		if !found {
			t.Fatalf("neutralised login not in %q", recs)
		}
	})
}
