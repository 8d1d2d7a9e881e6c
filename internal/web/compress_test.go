package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// jsonBody is a listing-like JSON answer of about n bytes.
func jsonBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"success":true,"data":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"guid":"0f8fad5b-d9cb-469f-%04x-%012x","field_values":{"a":"%s","b":%d.%02d},"permissions":{"canEdit":false}}`,
			i, i%65536, i*7919, strings.Repeat("xy", i%17), i*31%1000, i%100)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// referenceSize is the size of body compressed in one go by a fresh
// encoder of a level (the pooled encoders of gzhttp keep tables between
// answers, so their output may differ by a few bytes from one use to the
// next).
func referenceSize(t *testing.T, enc string, level int, body []byte) int {
	t.Helper()
	if enc == "gzip" {
		var b bytes.Buffer
		w, err := gzip.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Len()
	}
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevel(level)), zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(128<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return len(e.EncodeAll(body, nil))
}

func decode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	switch enc {
	case "gzip":
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return out
	case "zstd":
		d, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		out, err := d.DecodeAll(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return b
}

// serve runs one answer through Compress; chunk > 0 writes the body in
// pieces of that size, flush flushes after the first piece.
func serve(body []byte, ct, accept string, chunk int, flush bool) *httptest.ResponseRecorder {
	h := Compress()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		if chunk <= 0 {
			chunk = len(body)
		}
		for i := 0; i < len(body); i += chunk {
			_, _ = w.Write(body[i:min(i+chunk, len(body))])
			if flush && i == 0 {
				w.(http.Flusher).Flush()
			}
		}
	}))
	req := httptest.NewRequest(http.MethodGet, "/api/v1/x", nil)
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestCompressLevels checks that every JSON answer decodes to itself and
// that the level follows the answer's size: an answer of at most
// CompressSmallMax bytes has the size of the small-answer level's output,
// a larger or flushed one that of the fast level's.
func TestCompressLevels(t *testing.T) {
	small, large := jsonBody(60<<10), jsonBody(3*CompressSmallMax)
	for _, tc := range []struct {
		name   string
		body   []byte
		ct     string
		accept string
		chunk  int
		flush  bool
		enc    string // expected Content-Encoding
		level  int    // expected level (when enc is set): the levels chosen in bench/README.md "Session 6"
	}{
		{"small json zstd", small, "application/json", "gzip, zstd", 0, false, "zstd", int(zstd.SpeedBetterCompression)},
		{"small json gzip", small, "application/json", "gzip", 0, false, "gzip", gzip.BestCompression},
		{"small json in pieces", small, "application/json; charset=utf-8", "zstd", 1000, false, "zstd", int(zstd.SpeedBetterCompression)},
		{"exactly the limit", jsonBody(CompressSmallMax)[:CompressSmallMax], "application/json", "gzip", 4096, false, "gzip", gzip.BestCompression},
		{"large json zstd", large, "application/json", "zstd", 0, false, "zstd", int(zstd.SpeedFastest)},
		{"large json gzip in pieces", large, "application/json", "gzip", 32 << 10, false, "gzip", gzip.DefaultCompression},
		{"flushed json", small, "application/json", "gzip", 2048, true, "gzip", gzip.DefaultCompression},
		{"problem json", small, "application/problem+json", "zstd", 0, false, "zstd", int(zstd.SpeedBetterCompression)},
		{"no Accept-Encoding", small, "application/json", "", 0, false, "", 0},
		{"under 1 KB", jsonBody(500), "application/json", "gzip, zstd", 0, false, "", 0},
		{"not json", small, "text/csv", "gzip, zstd", 0, false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(tc.body, tc.ct, tc.accept, tc.chunk, tc.flush)
			got := rec.Body.Bytes()
			if ce := rec.Header().Get("Content-Encoding"); ce != tc.enc {
				t.Fatalf("Content-Encoding %q, want %q", ce, tc.enc)
			}
			if !bytes.Equal(decode(t, tc.enc, got), tc.body) {
				t.Fatal("the answer does not decode to the body")
			}
			if tc.enc == "" {
				return
			}
			// the size tells the level: nearer to the expected level's
			// output than to the other level's
			other := map[int]int{gzip.BestCompression: gzip.DefaultCompression, gzip.DefaultCompression: gzip.BestCompression,
				int(zstd.SpeedBetterCompression): int(zstd.SpeedFastest), int(zstd.SpeedFastest): int(zstd.SpeedBetterCompression)}[tc.level]
			want, not := referenceSize(t, tc.enc, tc.level, tc.body), referenceSize(t, tc.enc, other, tc.body)
			if abs(len(got)-want) >= abs(len(got)-not) {
				t.Fatalf("%d bytes: %s level %d gives %d, level %d %d", len(got), tc.enc, tc.level, want, other, not)
			}
		})
	}
	// the small-answer levels are what make the page smaller
	for _, enc := range []string{"gzip", "zstd"} {
		fast, best := gzip.DefaultCompression, gzip.BestCompression
		if enc == "zstd" {
			fast, best = int(zstd.SpeedFastest), int(zstd.SpeedBetterCompression)
		}
		if f, b := referenceSize(t, enc, fast, small), referenceSize(t, enc, best, small); b >= f {
			t.Errorf("%s: small-answer level %d bytes, fast level %d", enc, b, f)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
