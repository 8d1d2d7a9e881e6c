package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/klauspost/compress/gzhttp/writer/gzkp"
	"github.com/klauspost/compress/gzhttp/writer/zstdkp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"coreportal/internal/web"
)

// sentSize is the number of bytes the server's compression middleware
// (web.Compress, the same code and levels) sends for body when the caller's
// Accept-Encoding is accept.
func sentSize(body []byte, accept string) (int, string) {
	h := web.Compress()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	req := httptest.NewRequest(http.MethodGet, "/api/v1/lists/x/items", nil)
	req.Header.Set("Accept-Encoding", accept)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.Len(), rec.Header().Get("Content-Encoding")
}

// levelTable prints, for every gzip and zstd level, the compressed size of
// body and the CPU time one compression takes with gzhttp's pooled encoders
// (what the server uses), measured over a second of repetitions on one
// goroutine.
func levelTable(body []byte) {
	measure := func(newW func(io.Writer) interface {
		io.Writer
		Close() error
	}) (int, time.Duration) {
		var b bytes.Buffer
		run := func() {
			b.Reset()
			w := newW(&b)
			_, _ = w.Write(body)
			_ = w.Close()
		}
		run() // warm the pool
		n, cpu0, t0 := 0, cpuTime(), time.Now()
		for time.Since(t0) < time.Second {
			run()
			n++
		}
		return b.Len(), (cpuTime() - cpu0) / time.Duration(n)
	}
	for l := gzip.BestSpeed; l <= gzip.BestCompression; l++ {
		size, cpu := measure(func(w io.Writer) interface {
			io.Writer
			Close() error
		} {
			return gzkp.NewWriter(w, l)
		})
		fmt.Printf("  gzip level %d: %6d bytes, %4d µs CPU per answer\n", l, size, cpu.Microseconds())
	}
	for l := zstd.SpeedFastest; l <= zstd.SpeedBestCompression; l++ {
		size, cpu := measure(func(w io.Writer) interface {
			io.Writer
			Close() error
		} {
			return zstdkp.NewWriter(w, int(l))
		})
		fmt.Printf("  zstd %-22s: %6d bytes, %4d µs CPU per answer\n", l, size, cpu.Microseconds())
	}
}
