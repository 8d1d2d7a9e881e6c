package sheets

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
	"time"
)

// sheetOf is a minimal workbook whose first sheet holds body (rows of sheetData).
func sheetOf(body string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := map[string]string{
		"[Content_Types].xml":        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels":                `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml":            `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml":   `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + body + `</sheetData></worksheet>`,
	}
	for name, b := range parts {
		w, _ := zw.Create(name)
		_, _ = io.WriteString(w, b)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// TestXLSXSparseAndWide: a row far below the header, a cell in the last
// column and a huge number read or fail quickly with an error.
func TestXLSXSparseAndWide(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxRows = 1000
	for name, tc := range map[string]struct {
		body string
		rows int
		err  bool
	}{
		"gap":    {`<row r="1"><c r="A1" t="inlineStr"><is><t>h</t></is></c></row><row r="1048576"><c r="A1048576"><v>1</v></c></row>`, 1, false},
		"wide":   {`<row r="1"><c r="XFD1"><v>1</v></c></row><row r="2"><c r="XFD2"><v>1</v></c></row>`, 0, true},
		"bignum": {`<row r="1"><c r="A1" t="inlineStr"><is><t>h</t></is></c></row><row r="2"><c r="A2"><v>1e300</v></c></row>`, 1, false},
		"badxml": {`<row r="1"><c r="A1"><v>1</v>`, 0, false}, // the header only: excelize reads what it can
	} {
		began := time.Now()
		_, rows, err := readAll(t, sheetOf(tc.body), lim)
		// well under a second plain; the bound catches a pathological read
		// (minutes) even under the race detector on a loaded machine
		if took := time.Since(began); took > 30*time.Second {
			t.Errorf("%s: %v", name, took)
		}
		if len(rows) != tc.rows || (err != nil) != tc.err {
			t.Errorf("%s: %d rows, %v", name, len(rows), err)
		}
	}
}
