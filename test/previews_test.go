package test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	dt "coreportal/internal/doctext/doctexttest"
	"coreportal/test/kit"
)

// needSoffice skips a test that needs LibreOffice when it is missing; under
// CI=true it fails instead (.ci/run installs it).
func needSoffice(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("soffice"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("soffice is not installed (apt-get install libreoffice-core-nogui libreoffice-writer-nogui libreoffice-draw-nogui)")
		}
		t.Skip("soffice is not installed")
	}
}

// rawGet is a GET of a binary answer (the kit decodes JSON envelopes).
func rawGet(t *testing.T, c *kit.Client, path string, status int) *kit.Response {
	t.Helper()
	req, err := http.NewRequest("GET", c.S.URL+"/api/v1"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.S.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %.200s", path, resp.StatusCode, status, b)
	}
	return &kit.Response{Status: resp.StatusCode, Header: resp.Header, Raw: b}
}

// pngOf is a w×h PNG.
func pngOf(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, h/2, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// docxOf is a minimal Word document whose body is body (WordprocessingML
// paragraphs), written to the zip as repeat copies.
func docxOf(body string, repeat int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name, s string) {
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(s))
	}
	put("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	put("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`)
	w, _ := zw.Create("word/document.xml")
	_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`))
	for i := 0; i < repeat; i++ {
		_, _ = w.Write([]byte(body))
	}
	_, _ = w.Write([]byte(`</w:body></w:document>`))
	_ = zw.Close()
	return buf.Bytes()
}

// previewJobs waits until no libraries.preview job is pending or running
// and returns them by file guid.
func previewJobs(t *testing.T, admin *kit.Client, within time.Duration) map[string]map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var list []map[string]any
		admin.Do(t, "GET", "/jobs?type=libraries.preview&limit=100", nil).Expect(t, 200).Into(t, &list)
		out, busy := map[string]map[string]any{}, false
		for _, j := range list {
			out[j["payload"].(map[string]any)["fileGuid"].(string)] = j
			busy = busy || j["status"] == "pending" || j["status"] == "running"
		}
		if !busy {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("preview jobs still busy after %s: %v", within, list)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestPreviews covers issue #31 item 4 on both databases: a PNG, a PDF and
// a DOCX get previews (LibreOffice installed), served with the file's
// rights and kept per version; the listing says so.
func TestPreviews(t *testing.T) {
	t.Parallel()
	needSoffice(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		reader, readerID := s.CreateUser(t, "pvreader", false)
		outsider, _ := s.CreateUser(t, "pvoutsider", false)
		f := newLibFixture(t, s, "previews")
		grantLib(t, admin, "node", f.nodeID, readerID, "view", nil)
		img := f.put(t, admin, "", "photo.png", pngOf(1200, 600), 201)
		pdf := f.put(t, admin, "", "scan.pdf", dt.PDF("BT /F1 24 Tf 72 712 Td (A PDF page) Tj ET"), 201)
		doc := f.put(t, admin, "", "letter.docx", docxOf(`<w:p><w:r><w:t>Hello preview</w:t></w:r></w:p>`, 1), 201)
		txt := f.put(t, admin, "", "notes.txt", []byte("plain"), 201)
		jobs := previewJobs(t, admin, 5*time.Minute)
		for _, g := range []map[string]any{img, pdf, doc} {
			if j := jobs[g["guid"].(string)]; j == nil || j["status"] != "succeeded" {
				t.Fatalf("%s: job %v", g["name"], j)
			}
		}
		if jobs[txt["guid"].(string)] != nil {
			t.Errorf("a text file got a preview job")
		}
		var list []map[string]any
		reader.Do(t, "GET", f.path("/files"), nil).Expect(t, 200).Into(t, &list)
		flags := map[string][2]bool{}
		for _, e := range list {
			flags[e["name"].(string)] = [2]bool{e["has_preview"].(bool), e["has_preview_pdf"].(bool)}
		}
		want := map[string][2]bool{"photo.png": {true, false}, "scan.pdf": {true, false}, "letter.docx": {true, true}, "notes.txt": {false, false}}
		for n, w := range want {
			if flags[n] != w {
				t.Errorf("%s: has_preview, has_preview_pdf = %v, want %v", n, flags[n], w)
			}
		}
		for _, g := range []map[string]any{img, pdf, doc} {
			r := rawGet(t, reader, f.path("/files/%d/preview", num(g)), 200)
			if ct := r.Header.Get("Content-Type"); ct != "image/png" {
				t.Fatalf("%s: content type %q", g["name"], ct)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(r.Raw))
			if err != nil || max(cfg.Width, cfg.Height) > 512 {
				t.Errorf("%s: preview %v %+v", g["name"], err, cfg)
			}
		}
		r := rawGet(t, reader, f.path("/files/%d/preview?format=pdf", num(doc)), 200)
		if !bytes.HasPrefix(r.Raw, []byte("%PDF")) || r.Header.Get("Content-Type") != "application/pdf" {
			t.Errorf("first-page PDF: %q %q", r.Header.Get("Content-Type"), r.Raw[:min(8, len(r.Raw))])
		}
		reader.Do(t, "GET", f.path("/files/%d/preview?format=pdf", num(img)), nil).Expect(t, 404, "NOT_FOUND")
		reader.Do(t, "GET", f.path("/files/%d/preview", num(txt)), nil).Expect(t, 404, "NOT_FOUND")
		reader.Do(t, "GET", f.path("/files/%d/preview?format=gif", num(img)), nil).Expect(t, 400, "VALIDATION_ERROR")
		reader.Do(t, "GET", f.path("/files/%d/preview?versionId=nope", num(img)), nil).Expect(t, 400, "VALIDATION_ERROR")
		outsider.Do(t, "GET", f.path("/files/%d/preview", num(img)), nil).Expect(t, 403)

		// a new version gets its own preview; the old one stays with its version
		var versions []map[string]any
		admin.Do(t, "GET", f.path("/files/%d/versions", num(img)), nil).Expect(t, 200).Into(t, &versions)
		v1 := versions[0]["id"].(string)
		f.put(t, admin, "", "photo.png", pngOf(100, 300), 200)
		previewJobs(t, admin, time.Minute)
		r = rawGet(t, reader, f.path("/files/%d/preview", num(img)), 200)
		if cfg, _ := png.DecodeConfig(bytes.NewReader(r.Raw)); cfg.Width != 100 || cfg.Height != 300 {
			t.Errorf("new version preview %+v", cfg)
		}
		r = rawGet(t, reader, f.path("/files/%d/preview?versionId=%s", num(img), v1), 200)
		if cfg, _ := png.DecodeConfig(bytes.NewReader(r.Raw)); cfg.Width != 512 || cfg.Height != 256 {
			t.Errorf("first version preview %+v", cfg)
		}
	}, "CORE_PREVIEW_TIMEOUT=240s")
}

// TestPreviewLimits: a 100-page PDF and a hostile DOCX (millions of
// paragraphs in a small file) stay within the time and memory limits: their
// jobs end by the time limit (a preview or a failure naming the limit), the
// service keeps answering and the files stay downloadable.
func TestPreviewLimits(t *testing.T) {
	t.Parallel()
	needSoffice(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		f := newLibFixture(t, s, "pvlimits")
		pages := make([]string, 100)
		for i := range pages {
			pages[i] = "page " + strings.Repeat("x", i%7)
		}
		long := f.put(t, admin, "", "long.pdf", dt.PDFPages(pages...), 201)
		bomb := f.put(t, admin, "", "hostile.docx", docxOf(`<w:p><w:r><w:t>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</w:t></w:r></w:p>`, 3_000_000), 201)
		start := time.Now()
		jobs := previewJobs(t, admin, 3*time.Minute)
		t.Logf("limit jobs ended after %s", time.Since(start))
		for _, g := range []map[string]any{long, bomb} {
			j := jobs[g["guid"].(string)]
			if j == nil || j["status"] != "succeeded" && !strings.Contains(j["error"].(string), "limit") {
				t.Fatalf("%s: job %v", g["name"], j)
			}
			if j["status"] == "failed" && j["attempts"] != 1.0 {
				t.Errorf("%s: a limit failure was retried: %v", g["name"], j)
			}
			if j["status"] == "failed" {
				admin.Do(t, "GET", f.path("/files/%d/preview", num(g)), nil).Expect(t, 404)
			}
			resp, _ := f.get(t, admin, g["guid"], nil)
			if resp.StatusCode != 200 {
				t.Errorf("%s: download %d", g["name"], resp.StatusCode)
			}
		}
		if j := jobs[bomb["guid"].(string)]; j["status"] != "failed" {
			t.Errorf("the hostile document was rendered: %v", j)
		}
		s.Anon().Do(t, "GET", "/health", nil).Expect(t, 200)
	}, "CORE_PREVIEW_TIMEOUT=20s", "CORE_PREVIEW_MEMORY_MB=1536")
}

// TestPreviewsWithoutLibreOffice: with no soffice, PDF and Office documents
// get no preview job and no error; images still get previews.
func TestPreviewsWithoutLibreOffice(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		f := newLibFixture(t, s, "pvnone")
		img := f.put(t, admin, "", "photo.png", pngOf(64, 64), 201)
		pdf := f.put(t, admin, "", "scan.pdf", dt.PDF("BT (x) Tj ET"), 201)
		doc := f.put(t, admin, "", "letter.docx", docxOf(`<w:p><w:r><w:t>x</w:t></w:r></w:p>`, 1), 201)
		// a 16-bit RGBA PNG under the pixel limit whose decoded bytes
		// (8 a pixel, 141 MB) pass the byte limit: no preview, failed once
		var deepPNG bytes.Buffer
		if err := png.Encode(&deepPNG, image.NewNRGBA64(image.Rect(0, 0, 4200, 4200))); err != nil {
			t.Fatal(err)
		}
		deep := f.put(t, admin, "", "deep.png", deepPNG.Bytes(), 201)
		jobs := previewJobs(t, admin, time.Minute)
		if len(jobs) != 2 || jobs[img["guid"].(string)]["status"] != "succeeded" {
			t.Fatalf("jobs %v", jobs)
		}
		if j := jobs[deep["guid"].(string)]; j["status"] != "failed" || j["attempts"] != 1.0 || !strings.Contains(fmt.Sprint(j["error"]), "limits") {
			t.Fatalf("the 16-bit PNG over the byte limit: job %v", j)
		}
		for _, g := range []map[string]any{pdf, doc, deep} {
			m := admin.Do(t, "GET", f.path("/files/%d", num(g)), nil).Expect(t, 200).Map(t)
			if m["has_preview"] != false {
				t.Errorf("%s: %v", g["name"], m)
			}
			admin.Do(t, "GET", f.path("/files/%d/preview", num(g)), nil).Expect(t, 404)
		}
		rawGet(t, admin, f.path("/files/%d/preview", num(img)), 200)
	}, "CORE_PREVIEW_SOFFICE=/nonexistent/soffice")
}
