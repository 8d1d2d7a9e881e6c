// Package doctexttest builds small documents of every format doctext reads,
// and hostile ones, for tests (unit tests and the black-box tests under test/).
package doctexttest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Zip builds a ZIP of name → content.
func Zip(files ...[2]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WNS declares the WordprocessingML namespace prefix w.
const WNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

// Docx is a Word document with one paragraph per string.
func Docx(paras ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><w:document ` + WNS + `><w:body>`)
	for _, p := range paras {
		fmt.Fprintf(&b, `<w:p><w:pPr><w:jc w:val="left"/></w:pPr><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, p)
	}
	b.WriteString(`</w:body></w:document>`)
	return Zip([2]string{"[Content_Types].xml", `<Types/>`}, [2]string{"word/document.xml", b.String()})
}

// Pptx is a presentation with one slide per string.
func Pptx(slides ...string) []byte {
	files := [][2]string{{"[Content_Types].xml", `<Types/>`}}
	for i, s := range slides {
		files = append(files, [2]string{fmt.Sprintf("ppt/slides/slide%d.xml", i+1),
			`<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">` +
				`<p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>` + s + `</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`})
	}
	return Zip(files...)
}

// Odt is an OpenDocument text with one paragraph per string (each ending in "end").
func Odt(paras ...string) []byte {
	var b strings.Builder
	b.WriteString(`<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>`)
	for _, p := range paras {
		fmt.Fprintf(&b, `<text:p>%s<text:s/><text:span>end</text:span></text:p>`, p)
	}
	b.WriteString(`</office:text></office:body></office:document-content>`)
	return Zip([2]string{"mimetype", "application/vnd.oasis.opendocument.text"}, [2]string{"content.xml", b.String()})
}

// Xlsx is a workbook with the given cells (A1 → value) on Sheet1.
func Xlsx(cells map[string]string) []byte {
	f := excelize.NewFile()
	defer f.Close()
	for k, v := range cells {
		if err := f.SetCellValue("Sheet1", k, v); err != nil {
			panic(err)
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// PDF builds a one-page PDF whose content stream is content (a correct
// cross-reference table included).
func PDF(content string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return PDFObjects(objs, 1)
}

// PDFPages is a PDF with one page per text, all kids of one Pages node
// (the flat tree most writers produce).
func PDFPages(texts ...string) []byte {
	kids := make([]string, len(texts))
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	for i, t := range texts {
		page, content := len(objs)+1, len(objs)+2
		kids[i] = fmt.Sprintf("%d 0 R", page)
		c := "BT (" + t + ") Tj ET"
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>", content),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(texts))
	return PDFObjects(objs, 1)
}

// PDFFlate is a one-page PDF whose content stream is content compressed
// with FlateDecode (zlib).
func PDFFlate(content []byte) []byte {
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(content)
	_ = zw.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()),
	}
	return PDFObjects(objs, 1)
}

// PDFObjects lays out numbered objects (1…) with a cross-reference table and
// a trailer whose root is object root.
func PDFObjects(objs []string, root int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, root, xref)
	return b.Bytes()
}

// BombZip is a ZIP with one entry that declares declared bytes but
// inflates to actual bytes of 'a'.
func BombZip(name string, declared, actual int) []byte {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	chunk := bytes.Repeat([]byte("a"), 1<<16)
	for n := 0; n < actual; n += len(chunk) {
		_, _ = fw.Write(chunk[:min(len(chunk), actual-n)])
	}
	_ = fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: uint64(comp.Len()),
		UncompressedSize64: uint64(declared), CRC32: 0})
	if err != nil {
		panic(err)
	}
	_, _ = w.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
