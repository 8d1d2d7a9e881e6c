package test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"coreportal/test/kit"
)

// TestListsExport: an export holds what the listing with the same view,
// filter, sort and q shows the caller, in the view's columns, with typed
// cells in XLSX, readable text in CSV and formulas neutralised.
func TestListsExport(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "exp")
		a := f.admin
		target := newListFixture(t, s, "exptarget")
		target.create(t, a, map[string]any{"title": "Target one"})
		me := a.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
		note := f.addField(t, "note", "text", nil)
		body := f.addField(t, "body", "multiline_text", nil)
		rich := f.addField(t, "rich", "html_text", nil)
		tags := f.addField(t, "tags", "choice", map[string]any{"choices": []string{"red", "green"}, "allowMultiple": true})
		amount := f.addField(t, "amount", "number", nil)
		due := f.addField(t, "due", "date", nil)
		at := f.addField(t, "at", "datetime", nil)
		done := f.addField(t, "done", "boolean", nil)
		owner := f.addField(t, "owner", "person", nil)
		site := f.addField(t, "site", "link", nil)
		ref := f.addField(t, "ref", "lookup", map[string]any{"lookupListId": target.listID})
		f.create(t, a, map[string]any{"title": "Alpha", note: "=1+1", body: "l1\nl2", rich: "<p>Hi &amp; <b>bye</b></p>", tags: []string{"red", "green"},
			amount: 10.5, due: "2024-01-31", at: "2024-01-31T10:20:30Z", done: true, owner: map[string]any{"principalType": "user", "id": me["id"]},
			site: map[string]any{"url": "https://example.com/a"}, ref: 1})
		f.create(t, a, map[string]any{"title": "Beta", amount: -3, note: "@SUM(A1)"})
		f.create(t, a, map[string]any{"title": "Gamma", amount: 7, note: "-2", done: false})
		view := a.Do(t, "POST", f.path("/views"), map[string]any{"title": "Export", "config": map[string]any{
			"columns": []string{"title", "amount", "note", "tags", "due", "at", "done", "owner", "site", "rich", "body", "ref", "__created_at"}}}).Expect(t, 201).Map(t)
		q := url.Values{"viewId": {view["id"].(string)}, "filter": {`{"logic":"and","conditions":[{"column":"amount","operator":"gt","value":0}]}`},
			"sort": {"amount:asc"}}

		t.Run("xlsx", func(t *testing.T) {
			q := cloneQuery(q, "format", "xlsx")
			r := exportFile(t, a, f, q).File(t)
			if ct := r.Header.Get("Content-Type"); ct != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
				!strings.Contains(r.Header.Get("Content-Disposition"), "exp.xlsx") {
				t.Fatalf("headers %v", r.Header)
			}
			x := openXLSX(t, r.Raw)
			sh := x.GetSheetList()[0]
			rows, _ := x.GetRows(sh)
			want := []string{"Title", "amount", "note", "tags", "due", "at", "done", "owner", "site", "rich", "body", "ref", "Created"}
			if strings.Join(rows[0], "|") != strings.Join(want, "|") {
				t.Fatalf("header %q", rows[0])
			}
			if len(rows) != 3 || rows[1][0] != "Gamma" || rows[2][0] != "Alpha" {
				t.Fatalf("rows (filtered amount > 0, sorted by amount) %q", rows)
			}
			raw := func(cell string) string {
				v, _ := x.GetCellValue(sh, cell, excelize.Options{RawCellValue: true})
				return v
			}
			shown := func(cell string) string { v, _ := x.GetCellValue(sh, cell); return v }
			typ := func(cell string) excelize.CellType { c, _ := x.GetCellType(sh, cell); return c }
			if raw("B3") != "10.5" || typ("B3") == excelize.CellTypeSharedString || typ("B3") == excelize.CellTypeInlineString {
				t.Fatalf("amount cell %q type %v", raw("B3"), typ("B3"))
			}
			if raw("E3") != "45322" || shown("E3") != "2024-01-31" {
				t.Fatalf("date cell %q shown %q", raw("E3"), shown("E3"))
			}
			if !strings.HasPrefix(raw("F3"), "45322.43") || shown("F3") != "2024-01-31 10:20:30" {
				t.Fatalf("datetime cell %q shown %q", raw("F3"), shown("F3"))
			}
			if typ("G3") != excelize.CellTypeBool || raw("G3") != "1" || typ("G2") != excelize.CellTypeBool || raw("G2") != "0" {
				t.Fatalf("boolean cells %v %q %v %q", typ("G3"), raw("G3"), typ("G2"), raw("G2"))
			}
			if shown("C3") != "'=1+1" || shown("C2") != "'-2" {
				t.Fatalf("formulas not neutralised: %q %q", shown("C3"), shown("C2"))
			}
			if fm, _ := x.GetCellFormula(sh, "C3"); fm != "" {
				t.Fatalf("formula %q", fm)
			}
			if shown("D3") != "red; green" || shown("H3") != "Administrator" || shown("I3") != "https://example.com/a" ||
				shown("J3") != "Hi & bye" || shown("K3") != "l1\nl2" || shown("L3") != "Target one" {
				t.Fatalf("readable values %q", rows[2])
			}
			if !strings.HasPrefix(raw("M3"), "4") || !strings.Contains(shown("M3"), ":") {
				t.Fatalf("created cell %q %q", raw("M3"), shown("M3"))
			}
		})

		t.Run("csv", func(t *testing.T) {
			r := exportFile(t, a, f, cloneQuery(q, "format", "csv")).File(t)
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
				t.Fatalf("content type %q", r.Header.Get("Content-Type"))
			}
			recs := readCSV(t, r.Raw)
			if len(recs) != 3 || recs[0][0] != "Title" || recs[2][0] != "Alpha" {
				t.Fatalf("csv %q", recs)
			}
			alpha := recs[2]
			want := []string{"Alpha", "10.5", "'=1+1", "red; green", "2024-01-31", "2024-01-31 10:20:30", "Yes", "Administrator",
				"https://example.com/a", "Hi & bye", "l1\nl2", "Target one"}
			if strings.Join(alpha[:12], "|") != strings.Join(want, "|") {
				t.Fatalf("csv row %q, want %q", alpha, want)
			}
			// q narrows like the listing; no view: every field in field order
			r = exportFile(t, a, f, url.Values{"format": {"csv"}, "q": {"beta"}}).File(t)
			recs = readCSV(t, r.Raw)
			if len(recs) != 2 || recs[0][0] != "Title" || recs[1][0] != "Beta" || !contains(recs[1], "'@SUM(A1)") {
				t.Fatalf("q export %q", recs)
			}
		})

		t.Run("rights", func(t *testing.T) {
			// Gamma is isolated before the viewer gets view on the list
			a.Do(t, "PATCH", f.path("/items/3/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			viewer, vid := s.CreateUser(t, "expviewer", false)
			stranger, _ := s.CreateUser(t, "expstranger", false)
			listGrant(t, a, "list", f.listID, vid, "view")
			recs := readCSV(t, exportFile(t, viewer, f, cloneQuery(q, "format", "csv")).File(t).Raw)
			if len(recs) != 2 || recs[1][0] != "Alpha" {
				t.Fatalf("viewer export %q", recs)
			}
			exportFile(t, stranger, f, url.Values{"format": {"csv"}}).Expect(t, 403, "FORBIDDEN")
			exportFile(t, a, f, url.Values{"format": {"pdf"}}).Expect(t, 400, "VALIDATION_ERROR")
			exportFile(t, a, f, url.Values{"viewId": {"nope"}}).Expect(t, 400, "VALIDATION_ERROR")
			exportFile(t, a, f, url.Values{"filter": {`{"logic":"and","conditions":[{"column":"nope","operator":"eq","value":1}]}`}}).Expect(t, 400, "VALIDATION_ERROR")
		})
	})
}

func cloneQuery(q url.Values, k, v string) url.Values {
	out := url.Values{}
	for key, vs := range q {
		out[key] = append([]string(nil), vs...)
	}
	out.Set(k, v)
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
