package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"mime"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// CompressMinSize is the smallest JSON answer that is compressed.
const CompressMinSize = 1024

// jsonAnswer reports whether a Content-Type is a JSON answer of the API.
func jsonAnswer(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Compress compresses JSON answers of more than CompressMinSize bytes with
// zstd or gzip as the caller's Accept-Encoding asks (zstd when both are
// equally welcome) and adds Vary: Accept-Encoding. Everything else (event
// streams, downloads, images, the API reference page) passes through as it
// is. The work is done by github.com/klauspost/compress/gzhttp, with the
// levels chosen by answer size (compresslevel.go).
func Compress() func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(CompressMinSize),
		gzhttp.ContentTypeFilter(jsonAnswer),
		gzhttp.Implementation(sizedGzip),
		gzhttp.ZstdImplementation(sizedZstd),
	)
	if err != nil { // only on invalid options, which are constants here
		panic("compression middleware: " + err.Error())
	}
	return func(next http.Handler) http.Handler { return wrap(next) }
}

// maxETagBody bounds how much of an answer ETag holds in memory; a larger
// answer is sent as it is, without an ETag.
const maxETagBody = 8 << 20

// ETag gives every successful GET answer in JSON a weak entity tag (a digest
// of the body, so it changes whenever anything in the answer changes, the
// caller's permission flags included) and answers 304 Not Modified without a
// body when the request's If-None-Match names it (or is *). The tag is weak
// because the same answer may travel gzip- or zstd-compressed or plain.
func ETag(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		ew := &etagWriter{ResponseWriter: w, req: r}
		next.ServeHTTP(ew, r)
		ew.finish()
	})
}

type etagWriter struct {
	http.ResponseWriter
	req      *http.Request
	decided  bool
	buffered bool
	status   int
	buf      bytes.Buffer
}

func (e *etagWriter) WriteHeader(code int) {
	if e.decided {
		if !e.buffered {
			e.ResponseWriter.WriteHeader(code)
		}
		return
	}
	e.decided = true
	e.status = code
	if code == http.StatusOK && jsonAnswer(e.Header().Get("Content-Type")) {
		e.buffered = true
		return
	}
	e.ResponseWriter.WriteHeader(code)
}

func (e *etagWriter) Write(b []byte) (int, error) {
	if !e.decided {
		e.WriteHeader(http.StatusOK)
	}
	if !e.buffered {
		return e.ResponseWriter.Write(b)
	}
	if e.buf.Len()+len(b) > maxETagBody { // too big to tag: send what we hold and stream on
		e.buffered = false
		e.ResponseWriter.WriteHeader(e.status)
		if _, err := e.ResponseWriter.Write(e.buf.Bytes()); err != nil {
			return 0, err
		}
		e.buf = bytes.Buffer{}
		return e.ResponseWriter.Write(b)
	}
	return e.buf.Write(b)
}

// Flush passes through for unbuffered answers (event streams); a buffered
// answer is sent whole at the end.
func (e *etagWriter) Flush() {
	if e.buffered {
		return
	}
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (e *etagWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

func (e *etagWriter) finish() {
	if !e.buffered {
		return
	}
	sum := sha256.Sum256(e.buf.Bytes())
	tag := `W/"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	h := e.Header()
	h.Set("ETag", tag)
	if etagMatches(e.req.Header.Values("If-None-Match"), tag) {
		h.Del("Content-Length")
		h.Del("Content-Type")
		e.ResponseWriter.WriteHeader(http.StatusNotModified)
		return
	}
	e.ResponseWriter.WriteHeader(e.status)
	_, _ = e.ResponseWriter.Write(e.buf.Bytes())
}

// etagMatches is the weak comparison of RFC 9110 13.1.2 over the
// comma-separated If-None-Match values.
func etagMatches(values []string, tag string) bool {
	opaque := strings.TrimPrefix(tag, "W/")
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == opaque {
				return true
			}
		}
	}
	return false
}
