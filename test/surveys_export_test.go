package test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"

	"coreportal/test/kit"
)

// rowsText returns every column of every row of query as text, for searching.
func rowsText(t *testing.T, db interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}, query string, args ...any) string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			fmt.Fprintf(&b, "%s=%v|", cols[i], v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func surveyAnonymous(t *testing.T, s *kit.Server, node, readerID string) {
	admin := s.Admin(t)
	reader := s.Login(t, "reader", "password-reader")
	editorID := ""
	sv := mkSurvey(t, admin, node, "anon", surveyDef(true), nil)
	id := sv["id"].(string)
	admin.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	card := admin.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t)
	if card["anonymous"] != true {
		t.Fatalf("anonymous card %v", card)
	}
	logsBefore := len(s.Logs())
	submitSurvey(reader, t, id, map[string]any{"color": map[string]any{"optionId": "blue"}, "comment": map[string]any{"text": "secret"},
		"age": map[string]any{"value": 33}}).Expect(t, 201)
	submitSurvey(reader, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 409, "CONFLICT")
	if logs := s.Logs()[logsBefore:]; strings.Contains(strings.ToLower(logs), readerID) {
		t.Fatalf("the respondent's id reached the log:\n%s", logs)
	}

	// no user id anywhere in the stored rows of the answer
	db := openDB(t, s)
	q := db.Q(context.Background())
	for _, query := range []string{
		`SELECT * FROM survey_responses WHERE survey_id = ?`,
		`SELECT * FROM survey_answers WHERE survey_id = ?`,
		`SELECT * FROM survey_respondents WHERE survey_id = ?`,
		`SELECT * FROM survey_counts WHERE survey_id = ?`,
		`SELECT * FROM surveys WHERE id = ?`,
	} {
		text := strings.ToLower(rowsText(t, q, query, id))
		if text == "" && !strings.Contains(query, "survey_counts") {
			t.Fatalf("%s: no rows", query)
		}
		if strings.Contains(text, readerID) || strings.Contains(text, "reader") {
			t.Fatalf("%s holds the respondent:\n%s", query, text)
		}
	}
	if text := strings.ToLower(rowsText(t, q, `SELECT * FROM jobs`)); strings.Contains(text, readerID) {
		t.Fatalf("a job holds the respondent:\n%s", text)
	}
	var respondent, name sql.NullString
	if err := q.QueryRowContext(context.Background(), `SELECT respondent_id, respondent_name FROM survey_responses WHERE survey_id = ?`, id).Scan(&respondent, &name); err != nil || respondent.Valid || name.Valid {
		t.Fatalf("anonymous response row: %v %v %v", respondent, name, err)
	}

	// results carry no names
	r := admin.Do(t, "GET", "/surveys/"+id+"/responses", nil).Expect(t, 200).Map(t)
	row := r["rows"].([]any)[0].(map[string]any)
	if r["anonymous"] != true || row["respondent"] != nil || row["submittedAt"] != nil || row["values"].(map[string]any)["comment"] != "secret" {
		t.Fatalf("anonymous responses %v", r)
	}
	if st := admin.Do(t, "GET", "/surveys/"+id+"/stats", nil).Expect(t, 200).Map(t); st["answerCount"] != 1.0 {
		t.Fatalf("anonymous stats %v", st)
	}
	if tv := reader.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 200).Map(t); tv["hasAnswered"] != true || tv["anonymous"] != true {
		t.Fatalf("anonymous take view %v", tv)
	}
	// the export has no respondent columns
	f := exportWorkbook(t, admin, id)
	if h, _ := f.GetCellValue("Responses", "B1"); h != "Favourite colour" {
		t.Fatalf("anonymous export header B1 %q", h)
	}
	if v, _ := f.GetCellValue("Responses", "B2"); v != "Blue" {
		t.Fatalf("anonymous export B2 %q", v)
	}
	_ = editorID
}

// exportWorkbook queues an export, waits for it and opens the download.
func exportWorkbook(t *testing.T, c *kit.Client, id string) *excelize.File {
	t.Helper()
	ex := c.Do(t, "POST", "/surveys/"+id+"/export", nil).Expect(t, 202).Map(t)
	if ex["status"] != "queued" {
		t.Fatalf("new export %v", ex)
	}
	st := waitExport(t, c, id, ex["id"].(string))
	if st["status"] != "done" {
		t.Fatalf("export %v", st)
	}
	r := c.Do(t, "GET", "/surveys/"+id+"/export/"+ex["id"].(string)+"/download", nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" {
		t.Fatalf("download %d %v", r.Status, r.Header)
	}
	f, err := excelize.OpenReader(bytes.NewReader(r.Raw))
	if err != nil {
		t.Fatalf("open the export: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func surveyExport(t *testing.T, s *kit.Server, node, editorID string) {
	admin := s.Admin(t)
	reader := s.Login(t, "reader", "password-reader")
	editor := s.Login(t, "editor", "password-editor")
	sv := mkSurvey(t, admin, node, "export", surveyDef(false), nil)
	id := sv["id"].(string)
	admin.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	payload := `=HYPERLINK("http://evil.example","click")`
	submitSurvey(reader, t, id, map[string]any{"color": map[string]any{"optionId": "green"}, "food": map[string]any{"optionIds": []any{"pizza", "salad"}},
		"comment": map[string]any{"text": payload}, "age": map[string]any{"value": 42.5}, "start": map[string]any{"date": "2026-02-03"},
		"boss": map[string]any{"userId": editorID}, "team": map[string]any{"users": []any{map[string]any{"userId": editorID}}}}).Expect(t, 201)
	submitSurvey(editor, t, id, map[string]any{"color": map[string]any{"optionId": "red"}, "comment": map[string]any{"text": "@SUM(1+1)"}}).Expect(t, 201)

	f := exportWorkbook(t, admin, id)
	rows, err := f.GetRows("Responses")
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"Response", "Respondent", "Submitted (UTC)", "Favourite colour", "Food", "Comment", "Age", "Start date", "Manager", "Team"}
	if strings.Join(rows[0], "|") != strings.Join(wantHeader, "|") || len(rows) != 3 {
		t.Fatalf("export rows %q", rows)
	}
	want := []string{"1", "Reader", "", "Green", "Pizza; Salad", "'" + payload, "42.5", "2026-02-03", "Editor", "Editor"}
	for i, w := range want {
		if i == 2 {
			continue
		}
		if rows[1][i] != w {
			t.Fatalf("row 2 column %d = %q, want %q (row %q)", i+1, rows[1][i], w, rows[1])
		}
	}
	if rows[2][5] != "'@SUM(1+1)" || rows[2][1] != "Editor" || rows[2][3] != "Red" {
		t.Fatalf("row 3 %q", rows[2])
	}
	// numbers are numbers, dates are dates, text is never a formula
	if raw, _ := f.GetCellValue("Responses", "G2", excelize.Options{RawCellValue: true}); raw != "42.5" {
		t.Fatalf("age raw %q", raw)
	}
	raw, _ := f.GetCellValue("Responses", "H2", excelize.Options{RawCellValue: true})
	if serial, err := strconv.ParseFloat(raw, 64); err != nil || serial < 46000 || serial > 46100 {
		t.Fatalf("date cell raw %q is not a date serial", raw)
	}
	if ts, _ := f.GetCellValue("Responses", "C2"); !strings.HasPrefix(ts, time.Now().UTC().Format("2006-01-02")[:4]) {
		t.Fatalf("submitted cell %q", ts)
	}
	for _, cell := range []string{"F2", "F3"} {
		if fm, _ := f.GetCellFormula("Responses", cell); fm != "" {
			t.Fatalf("%s is a formula %q", cell, fm)
		}
	}

	// exports belong to their survey
	other := mkSurvey(t, admin, node, "export-other", surveyDef(false), nil)["id"].(string)
	ex := admin.Do(t, "POST", "/surveys/"+id+"/export", nil).Expect(t, 202).Map(t)["id"].(string)
	waitExport(t, admin, id, ex)
	admin.Do(t, "GET", "/surveys/"+other+"/export/"+ex, nil).Expect(t, 404, "NOT_FOUND")
	admin.Do(t, "GET", "/surveys/"+other+"/export/"+ex+"/download", nil).Expect(t, 404, "NOT_FOUND")
	admin.Do(t, "GET", "/surveys/"+id+"/export/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
	reader.Do(t, "GET", "/surveys/"+id+"/export/"+ex, nil).Expect(t, 403, "FORBIDDEN")
	reader.Do(t, "GET", "/surveys/"+id+"/export/"+ex+"/download", nil).Expect(t, 403, "FORBIDDEN")

	// the job retention deletes exports with their files
	files := func() int {
		n := 0
		_ = filepath.Walk(filepath.Join(s.DataDir, "blobs", "survey-exports"), func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && strings.HasSuffix(p, ex) {
				n++
			}
			return nil
		})
		return n
	}
	if files() != 1 {
		t.Fatalf("export file of %s missing", ex)
	}
	db := openDB(t, s)
	if _, err := db.W(context.Background()).ExecContext(context.Background(), `UPDATE jobs SET completed_at = ? WHERE id = ?`, time.Now().UTC().AddDate(0, 0, -40), ex); err != nil {
		t.Fatal(err)
	}
	run := admin.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 202).Map(t)
	waitJob(t, admin, run["jobId"].(string), "succeeded")
	admin.Do(t, "GET", "/surveys/"+id+"/export/"+ex, nil).Expect(t, 404, "NOT_FOUND")
	if files() != 0 {
		t.Fatalf("export file of %s kept after retention", ex)
	}
}
