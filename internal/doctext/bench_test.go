package doctext

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	dt "coreportal/internal/doctext/doctexttest"
)

// BenchmarkExtract measures one extraction per format on documents of
// ordinary size (go test -run '^$' -bench Extract ./internal/doctext/).
func BenchmarkExtract(b *testing.B) {
	para := strings.Repeat("The quarterly budget report lists договоры поставки and their amounts. ", 10)
	paras := make([]string, 2000)
	pages := make([]string, 200)
	cells := map[string]string{}
	for i := range paras {
		paras[i] = para
	}
	for i := range pages {
		pages[i] = fmt.Sprintf("page %d %s", i, para[:200])
	}
	for r := 1; r <= 2000; r++ {
		for c := 'A'; c <= 'E'; c++ {
			cells[fmt.Sprintf("%c%d", c, r)] = fmt.Sprintf("value %d %c", r, c)
		}
	}
	docs := []struct {
		name string
		data []byte
	}{
		{"text-5MiB.txt", bytes.Repeat([]byte(para+"\n"), 5<<20/(len(para)+1))},
		{"report-2000-paragraphs.docx", dt.Docx(paras...)},
		{"sheet-10000-cells.xlsx", dt.Xlsx(cells)},
		{"deck-200-slides.pptx", dt.Pptx(pages...)},
		{"book-200-pages.pdf", dt.PDFPages(pages...)},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			for b.Loop() {
				if _, err := Extract(context.Background(), bytes.NewReader(d.data), int64(len(d.data)), d.name, "", DefaultLimits()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
