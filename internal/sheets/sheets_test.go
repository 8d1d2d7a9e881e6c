package sheets

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"
)

func readAll(t *testing.T, data []byte, lim Limits) (Reader, [][]Cell, error) {
	t.Helper()
	r, err := Open(bytes.NewReader(data), 1<<30, lim)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var rows [][]Cell
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r, rows, nil
		}
		if err != nil {
			return r, rows, err
		}
		rows = append(rows, row)
	}
}

func TestCSVEncodingsAndSeparators(t *testing.T) {
	text := "Имя;Сумма\r\n\"Ёлка; большая\";1,5\r\n\r\nДом;2\r\n"
	u16, _ := xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM).NewEncoder().Bytes([]byte(text))
	cp, _ := charmap.Windows1251.NewEncoder().Bytes([]byte(text))
	for name, c := range map[string]struct {
		data []byte
		enc  string
	}{"utf8": {[]byte(text), "utf-8"}, "utf8bom": {append([]byte("\uFEFF"), text...), "utf-8"}, "utf16be": {u16, "utf-16be"}, "cp1251": {cp, "windows-1251"}} {
		r, rows, err := readAll(t, c.data, DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Info().Encoding != c.enc || r.Info().Separator != ";" || strings.Join(r.Header(), "|") != "Имя|Сумма" {
			t.Fatalf("%s: info %v header %q", name, r.Info(), r.Header())
		}
		if len(rows) != 2 || rows[0][0].Text != "Ёлка; большая" || rows[1][0].Text != "Дом" || r.Line() != 4 {
			t.Fatalf("%s: rows %v line %d", name, rows, r.Line())
		}
		if n, ok := ParseNumber(rows[0][1]); !ok || n != 1.5 {
			t.Fatalf("%s: number %v", name, rows[0][1])
		}
	}
	if sep := detectSeparator("a\tb\tc\n1\t2\t3\n"); sep != '\t' {
		t.Fatalf("tab: %q", sep)
	}
	if sep := detectSeparator("a,b;c\n1,2;3\n4,5,6;7\n"); sep != ';' {
		t.Fatalf("consistent ; wins: %q", sep)
	}
}

func TestCSVLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxRecordBytes, lim.MaxCellChars, lim.MaxRows, lim.MaxColumns = 1000, 100, 2, 3
	for name, data := range map[string]string{
		"huge cell":  "a,b\n\"" + strings.Repeat("x", 5000) + "\",1\n",
		"long cell":  "a,b\n" + strings.Repeat("y", 200) + ",1\n",
		"many rows":  "a\n1\n2\n3\n",
		"many cols":  "a\n1,2,3,4\n",
		"open quote": "a,b\n\"" + strings.Repeat("z\n", 3000),
	} {
		if _, _, err := readAll(t, []byte(data), lim); !errors.Is(err, ErrLimit) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := Open(bytes.NewReader([]byte{0, 1, 2, 0, 0, 0}), 100, lim); !errors.Is(err, ErrFormat) {
		t.Fatalf("binary: %v", err)
	}
}

func TestXLSXTypes(t *testing.T) {
	f := excelize.NewFile()
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	dfmt, tfmt, pfmt := "dd.mm.yyyy", "m/d/yy h:mm", "0.00%"
	ds, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &dfmt})
	ts, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &tfmt})
	ps, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &pfmt})
	_ = f.SetSheetRow("Sheet1", "A1", &[]any{"d", "t", "n", "p", "b", "s"})
	_ = f.SetSheetRow("Sheet1", "A2", &[]any{day, day.Add(90 * time.Minute), 1234.5, 0.25, true, "=text"})
	_ = f.SetCellStyle("Sheet1", "A2", "A2", ds)
	_ = f.SetCellStyle("Sheet1", "B2", "B2", ts)
	_ = f.SetCellStyle("Sheet1", "D2", "D2", ps)
	var buf bytes.Buffer
	_, _ = f.WriteTo(&buf)
	_, rows, err := readAll(t, buf.Bytes(), DefaultLimits())
	if err != nil || len(rows) != 1 {
		t.Fatalf("%v %v", rows, err)
	}
	c := rows[0]
	if c[0].Kind != Date || !c[0].Time.Equal(day) || c[1].Kind != DateTime || !c[1].Time.Equal(day.Add(90*time.Minute)) {
		t.Fatalf("dates %+v %+v", c[0], c[1])
	}
	if c[2].Kind != Number || c[2].Num != 1234.5 || c[3].Kind != Number || c[3].Num != 0.25 || c[4].Kind != Bool || !c[4].Bool || c[5].Text != "=text" {
		t.Fatalf("cells %+v", c)
	}
}

// zipBomb is an XLSX whose sheet unpacks to far more than the limit.
func zipBomb(t testing.TB, size int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := map[string]string{
		"[Content_Types].xml":        `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
		"_rels/.rels":                `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml":            `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
	}
	for name, body := range parts {
		w, _ := zw.Create(name)
		_, _ = io.WriteString(w, body)
	}
	w, _ := zw.Create("xl/worksheets/sheet1.xml")
	_, _ = io.WriteString(w, `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c t="inlineStr"><is><t>`)
	chunk := strings.Repeat("A", 1<<20)
	for n := 0; n < size; n += len(chunk) {
		_, _ = io.WriteString(w, chunk)
	}
	_, _ = io.WriteString(w, `</t></is></c></row></sheetData></worksheet>`)
	_ = zw.Close()
	return buf.Bytes()
}

func TestXLSXZipBomb(t *testing.T) {
	lim := DefaultLimits()
	lim.UnzipSize, lim.UnzipXMLSize = 8<<20, 1<<20
	bomb := zipBomb(t, 64<<20)
	if len(bomb) > 1<<20 {
		t.Fatalf("bomb of %d bytes", len(bomb))
	}
	_, _, err := readAll(t, bomb, lim)
	if !errors.Is(err, ErrLimit) && !errors.Is(err, ErrFormat) {
		t.Fatalf("zip bomb: %v", err)
	}
}

func TestWriters(t *testing.T) {
	for _, format := range []string{"csv", "xlsx"} {
		var buf bytes.Buffer
		w, err := NewWriter(format, &buf, "S", []string{"=h", "n"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Row([]Cell{{Text: "+1"}, {Kind: Number, Num: -2}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, rows, err := readAll(t, buf.Bytes(), DefaultLimits())
		if err != nil || r.Header()[0] != "'=h" || rows[0][0].Text != "'+1" {
			t.Fatalf("%s: %v %v %v", format, r.Header(), rows, err)
		}
		if n, ok := ParseNumber(rows[0][1]); !ok || n != -2 {
			t.Fatalf("%s: number %+v", format, rows[0][1])
		}
	}
}

func TestPropose(t *testing.T) {
	for want, vals := range map[string][]string{
		TypeNumber: {"1", "2,5", "-3"}, TypeDate: {"2024-01-01", "31.12.2023"}, TypeDateTime: {"2024-01-01 10:00", "2024-01-02"},
		TypeBoolean: {"yes", "No"}, TypeLink: {"https://a.example", "http://b.example/x"}, TypeChoice: {"a", "b", "a", "b"},
		TypeText: {"a", "b", "c"}, TypeMultiline: {"a\nb"},
	} {
		st := NewStats()
		for _, v := range vals {
			st.Add(Cell{Text: v})
		}
		if got := st.Propose(nil); got != want {
			t.Fatalf("%v: %s, want %s", vals, got, want)
		}
	}
}

// FuzzOpen: any bytes either read or fail with an error, never panic, and
// stay within the limits. The seeds are small (a hand-made workbook of a
// few hundred bytes, not one excelize writes with its theme and styles): the
// fuzzer minimises every new input it finds by running it thousands of
// times, and on a large workbook (or one whose rows reach row 1,048,576,
// which excelize walks row by row) that took a minute per input with no
// executions counted meanwhile (TestXLSXSparseAndWide reads such sheets).
func FuzzOpen(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"))
	f.Add([]byte("\xff\xfea\x00;\x00b\x00\n\x001\x00;\x002\x00"))
	f.Add([]byte("\"a\"\"b\",c\n\"x\ny\",z\n"))
	f.Add([]byte("a\tb\n\xe0\xe1\t\xe2\n"))
	f.Add([]byte("PK\x03\x04"))
	f.Add(sheetOf(`<row r="1"><c r="A1" t="inlineStr"><is><t>h</t></is></c><c r="B1" t="b"><v>1</v></c></row><row r="2"><c r="A2"><v>1.5</v></c><c r="B2" t="b"><v>0</v></c></row>`))
	f.Add(sheetOf(`<row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="XFD3"><v>1e300</v></c></row>`))
	lim := DefaultLimits()
	lim.MaxRows, lim.MaxCellChars, lim.MaxRecordBytes, lim.UnzipSize, lim.UnzipXMLSize = 1000, 1000, 1<<16, 4<<20, 1<<20
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Open(bytes.NewReader(data), 1<<20, lim)
		if err != nil {
			return
		}
		defer r.Close()
		for i := 0; i <= lim.MaxRows+1; i++ {
			row, err := r.Next()
			if err != nil {
				return
			}
			if len(row) > lim.MaxColumns {
				t.Fatalf("%d columns", len(row))
			}
			for _, c := range row {
				if len([]rune(c.Text)) > lim.MaxCellChars*4 {
					t.Fatalf("cell of %d characters", len(c.Text))
				}
			}
		}
		t.Fatalf("more rows than the limit")
	})
}
