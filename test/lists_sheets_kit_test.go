package test

import (
	"bytes"
	"encoding/csv"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"coreportal/test/kit"
)

// fileAnswer is a download (not a JSON envelope).
type fileAnswer struct{ *kit.Response }

// File fails unless the answer is a 200 download.
func (r fileAnswer) File(t *testing.T) *kit.Response {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Raw)
	}
	return r.Response
}

// exportFile downloads an export of the list with the given query.
func exportFile(t *testing.T, c *kit.Client, f *listFixture, q url.Values) fileAnswer {
	t.Helper()
	return fileAnswer{c.Do(t, "GET", f.path("/items/export?"+q.Encode()), nil)}
}

// readCSV parses a CSV answer (UTF-8 with BOM).
func readCSV(t *testing.T, raw []byte) [][]string {
	t.Helper()
	if !bytes.HasPrefix(raw, []byte("\uFEFF")) {
		t.Fatalf("csv without BOM: %q", raw[:min(len(raw), 20)])
	}
	r := csv.NewReader(bytes.NewReader(raw[3:]))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("read csv: %v\n%s", err, raw)
	}
	return recs
}

// openXLSX opens an XLSX answer.
func openXLSX(t *testing.T, raw []byte) *excelize.File {
	t.Helper()
	x, err := excelize.OpenReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// uploadPreview posts a file to a preview operation.
func uploadPreview(t *testing.T, c *kit.Client, path, name string, content []byte) map[string]any {
	t.Helper()
	return c.Upload(t, "POST", path, "file", name, content, nil).Expect(t, 200).Map(t)
}

// waitImport polls an import until it ends.
func waitImport(t *testing.T, c *kit.Client, listID, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		st := c.Do(t, "GET", "/lists/"+listID+"/imports/"+id, nil).Expect(t, 200).Map(t)
		if st["status"] == "done" || st["status"] == "failed" {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("import still %v", st)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// column finds a preview column by header.
func column(t *testing.T, pv map[string]any, header string) map[string]any {
	t.Helper()
	for _, c := range pv["columns"].([]any) {
		if m := c.(map[string]any); m["header"] == header {
			return m
		}
	}
	t.Fatalf("no column %q in %v", header, pv["columns"])
	return nil
}

// xlsxOf builds a one-sheet workbook: rows of values (time.Time cells get
// the given number format by column).
func xlsxOf(t *testing.T, rows [][]any, formats map[int]string) []byte {
	t.Helper()
	x := excelize.NewFile()
	defer x.Close()
	styles := map[int]int{}
	for col, fm := range formats {
		fm := fm
		id, err := x.NewStyle(&excelize.Style{CustomNumFmt: &fm})
		if err != nil {
			t.Fatal(err)
		}
		styles[col] = id
	}
	for r, row := range rows {
		for c, v := range row {
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			if err := x.SetCellValue("Sheet1", cell, v); err != nil {
				t.Fatal(err)
			}
			if id, ok := styles[c]; ok && r > 0 {
				_ = x.SetCellStyle("Sheet1", cell, cell, id)
			}
		}
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func csvOf(rows [][]string, sep rune) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma = sep
	_ = w.WriteAll(rows)
	return b.String()
}
