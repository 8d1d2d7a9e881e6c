package doctext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	dt "coreportal/internal/doctext/doctexttest"
)

func extract(t *testing.T, data []byte, name string, lim Limits) (string, error) {
	t.Helper()
	return Extract(context.Background(), bytes.NewReader(data), int64(len(data)), name, "", lim)
}

func TestFormats(t *testing.T) {
	cp1251, _ := charmap.Windows1251.NewEncoder().String("Договор поставки")
	cases := []struct {
		name string
		data []byte
		want []string
		not  []string
	}{
		{"a.txt", []byte("Hello quarterly report\x00\xffdone"), []string{"Hello quarterly report", "done"}, nil},
		{"a.md", []byte("# Title\n\nSome *markdown* words"), []string{"# Title", "*markdown* words"}, nil},
		{"a.csv", []byte("name,amount\nсчёт,10\n"), []string{"name,amount", "счёт,10"}, nil},
		{"legacy.txt", []byte(cp1251), []string{"Договор поставки"}, nil},
		{"bom.txt", append([]byte{0xEF, 0xBB, 0xBF}, "bom text"...), []string{"bom text"}, []string{"\uFEFF"}},
		{"a.html", []byte(`<html><head><title>Doc</title><style>.x{color:red}</style><script>var secret=1</script></head>` +
			`<body><p>Ветер &amp; волны</p><div>second<b>bold</b>word</div></body></html>`),
			[]string{"Doc", "Ветер & волны", "secondboldword"}, []string{"secret", "color"}},
		{"a.docx", dt.Docx("Первый абзац", "Second paragraph"), []string{"Первый абзац\nSecond paragraph"}, []string{"left"}},
		{"a.pptx", dt.Pptx("slide one", "slide two"), []string{"slide one\nslide two"}, nil},
		{"a.odt", dt.Odt("Открытый документ"), []string{"Открытый документ end"}, nil},
		{"a.xlsx", dt.Xlsx(map[string]string{"A1": "budget", "B1": "2026", "A2": "квартал"}), []string{"Sheet1", "budget 2026", "квартал"}, nil},
		{"flate.pdf", dt.PDFFlate([]byte("BT /F1 12 Tf (Compressed stream text) Tj ET")), []string{"Compressed stream text"}, nil},
		{"a.pdf", dt.PDF("BT /F1 12 Tf 72 712 Td (Hello PDF world) Tj ET BT 72 690 Td [(Kern)-20(ed)-500(gap)] TJ ET"),
			[]string{"Hello PDF world", "Kerned gap"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := extract(t, c.data, c.name, DefaultLimits())
			if err != nil {
				t.Fatalf("extract: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("text %q lacks %q", got, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("text %q has %q", got, w)
				}
			}
		})
	}
}

func TestFormatDetection(t *testing.T) {
	cases := []struct{ name, mime, want string }{
		{"x.DOCX", "", DOCX}, {"x", "application/pdf", PDF}, {"x.bin", "text/plain; charset=utf-8", Plain},
		{"x.png", "image/png", ""}, {"x.xlsx", "application/octet-stream", XLSX}, {"x.odt", "", ODT},
	}
	for _, c := range cases {
		if got := Format(c.name, c.mime); got != c.want {
			t.Errorf("Format(%q, %q) = %q, want %q", c.name, c.mime, got, c.want)
		}
	}
	if _, err := extract(t, []byte("x"), "a.png", DefaultLimits()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("png: %v, want ErrUnsupported", err)
	}
}

func TestTextLimit(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxText = 1000
	got, err := extract(t, bytes.Repeat([]byte("word "), 10000), "a.txt", lim)
	if err != nil || len(got) > 1000 || len(got) < 900 {
		t.Fatalf("len %d err %v", len(got), err)
	}
	got, err = extract(t, dt.Docx(strings.Repeat("слово ", 5000)), "a.docx", lim)
	if err != nil || len(got) > 1000 {
		t.Fatalf("docx len %d err %v", len(got), err)
	}
}

func TestHostile(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxUnzipped = 8 << 20
	deep := `<w:document ` + dt.WNS + `>` + strings.Repeat("<w:p>", 100000) + "<w:t>x</w:t>"
	lim.MaxEntries = 100
	many := make([][2]string, 0, 201)
	many = append(many, [2]string{"word/document.xml", `<w:document ` + dt.WNS + `/>`})
	for i := range 200 {
		many = append(many, [2]string{fmt.Sprintf("f%d", i), ""})
	}
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"bomb-declared-small.docx", dt.BombZip("word/document.xml", 100, 4<<20), ErrHostile},
		{"bomb-declared-huge.docx", dt.BombZip("word/document.xml", 1<<40, 1<<10), ErrHostile},
		{"bomb.xlsx", dt.BombZip("xl/workbook.xml", 100, 4<<20), ErrHostile},
		{"deep.docx", dt.Zip([2]string{"word/document.xml", deep}), ErrHostile},
		{"many.docx", dt.Zip(many...), ErrHostile},
		{"notzip.docx", []byte("not a zip at all"), ErrMalformed},
		{"empty.pptx", dt.Zip([2]string{"x", "y"}), ErrMalformed},
		{"truncated.pdf", dt.PDF("BT (Hello) Tj ET")[:200], ErrMalformed},
		{"flate-bomb.pdf", dt.PDFFlate(bytes.Repeat([]byte(" "), 16<<20)), ErrHostile},
		{"garbage.pdf", []byte("%PDF-1.4\n" + strings.Repeat("1 0 obj << /A [ ", 1000)), ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := extract(t, c.data, c.name, lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestPDFLoop: a page tree whose kid is its own parent, with a page count
// of two billion, ends at once (with no text); a flat tree of many pages is
// read in order within the page limit.
func TestPDFLoop(t *testing.T) {
	loop := dt.PDFObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2000000000 >>",
	}, 1)
	lim := DefaultLimits()
	lim.Timeout = 2 * time.Second
	start := time.Now()
	got, err := extract(t, loop, "loop.pdf", lim)
	if got != "" {
		t.Fatalf("loop: %q %v", got, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	texts := make([]string, 1500)
	for i := range texts {
		texts[i] = fmt.Sprintf("page%04d", i+1)
	}
	lim.MaxPages = 1000
	lim.Timeout = time.Minute // the page limit is under test here, not the clock
	start = time.Now()
	got, err = extract(t, dt.PDFPages(texts...), "many.pdf", lim)
	if err != nil || !strings.HasPrefix(got, "page0001\npage0002") || !strings.HasSuffix(got, "page1000") {
		t.Fatalf("many pages: %v %.40q…%q", err, got, got[max(0, len(got)-20):])
	}
	t.Logf("1000 of 1500 pages in %s", time.Since(start))
}

func TestTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := dt.Docx("text")
	if _, err := Extract(ctx, bytes.NewReader(data), int64(len(data)), "a.docx", "", DefaultLimits()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestTooLarge(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxInput = 10
	data := dt.Docx("x")
	if _, err := extract(t, data, "a.docx", lim); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	// plain text is cut at MaxInput instead
	got, err := extract(t, []byte("0123456789abcdef"), "a.txt", lim)
	if err != nil || got != "0123456789" {
		t.Fatalf("got %q, %v", got, err)
	}
}
