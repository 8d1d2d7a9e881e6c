package test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestDownloadRanges: a Range header never makes an answer larger than the
// file (overlapping and adjacent ranges are coalesced, more than 16 ranges
// get the whole file with 200), and the zero-length suffix bytes=-0 is
// unsatisfiable (416 with Content-Range: bytes */size).
func TestDownloadRanges(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newLibFixture(t, s, "rangecap")
		content := bytes.Repeat([]byte("abcdefghij"), 10_000) // 100 KB
		rec := f.put(t, f.admin, "", "big.txt", content, 201)
		size := len(content)

		var sb strings.Builder
		// about 50,000 one-byte ranges over the first 500 bytes: together
		// less than the file, so only coalescing keeps the answer small
		sb.WriteString("bytes=0-0")
		for i := 1; sb.Len() < 400_000; i++ {
			fmt.Fprintf(&sb, ",%d-%d", i%500, i%500)
		}
		start := time.Now()
		resp, body := f.get(t, f.admin, num(rec), map[string]string{"Range": sb.String()})
		t.Logf("a %d-byte Range header: %d with %d bytes in %v", sb.Len(), resp.StatusCode, len(body), time.Since(start))
		if resp.StatusCode != 206 || !bytes.Equal(body, content[:500]) {
			t.Fatalf("400 KB of overlapping ranges: %d with %d bytes for a file of %d", resp.StatusCode, len(body), size)
		}

		for _, h := range []string{"bytes=-0", "bytes=-0,-0"} {
			resp, _ = f.get(t, f.admin, num(rec), map[string]string{"Range": h})
			if resp.StatusCode != 416 || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
				t.Fatalf("Range %s: %d Content-Range %q", h, resp.StatusCode, resp.Header.Get("Content-Range"))
			}
		}

		parts := make([]string, 20)
		for i := range parts {
			parts[i] = fmt.Sprintf("%d-%d", i*4000, i*4000+99)
		}
		resp, body = f.get(t, f.admin, num(rec), map[string]string{"Range": "bytes=" + strings.Join(parts, ",")})
		if resp.StatusCode != 200 || !bytes.Equal(body, content) {
			t.Fatalf("20 disjoint ranges: %d with %d bytes, want 200 with the whole file", resp.StatusCode, len(body))
		}

		resp, body = f.get(t, f.admin, num(rec), map[string]string{"Range": "bytes=100-199,150-299,300-399"})
		if resp.StatusCode != 206 || resp.Header.Get("Content-Range") != "bytes 100-399/100000" || !bytes.Equal(body, content[100:400]) {
			t.Fatalf("overlapping and adjacent ranges: %d %q %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
		}
		resp, body = f.get(t, f.admin, num(rec), map[string]string{"Range": "bytes=5000-5099,0-99"})
		if resp.StatusCode != 206 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") || len(body) > size {
			t.Fatalf("two disjoint ranges: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}

		// list attachments go through the same rules
		lf := newListFixture(t, s, "rangelist")
		lf.create(t, lf.admin, map[string]any{"title": "with a file"})
		att := lf.admin.Upload(t, "POST", lf.path("/items/1/attachments"), "file", "big.txt", content, nil).Expect(t, 201).Map(t)
		get := func(h string) *kit.Response {
			req, _ := http.NewRequest("GET", s.URL+"/api/v1/attachments/"+att["id"].(string)+"/download", nil)
			req.Header.Set("Range", h)
			return lf.admin.Send(t, req)
		}
		if r := get(sb.String()); r.Status != 206 || !bytes.Equal(r.Raw, content[:500]) {
			t.Fatalf("attachment, 400 KB of overlapping ranges: %d with %d bytes", r.Status, len(r.Raw))
		}
		if r := get("bytes=-0"); r.Status != 416 || r.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", size) {
			t.Fatalf("attachment, bytes=-0: %d %q", r.Status, r.Header.Get("Content-Range"))
		}
		if r := get("bytes=" + strings.Join(parts, ",")); r.Status != 200 || !bytes.Equal(r.Raw, content) {
			t.Fatalf("attachment, 20 disjoint ranges: %d with %d bytes", r.Status, len(r.Raw))
		}
		if r := get("bytes=10-19"); r.Status != 206 || string(r.Raw) != string(content[10:20]) {
			t.Fatalf("attachment, one range: %d %q", r.Status, r.Raw)
		}
	})
}
