package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The API reference at /api/docs is Scalar's standalone renderer, embedded
// (intranets are often offline; no CDN, font host or proxy is used). The
// bundle comes from the npm package pinned in tools/apidocs and is refreshed
// by scripts/apidocs-update.
//
//go:embed apidocs/index.html apidocs/init.js apidocs/scalar.js
var apidocs embed.FS

// docsCSP lets the renderer work and nothing more: its scripts from this
// server, its inline styles, data: images and fonts, and requests ("test
// request" and the document) to this server only.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docAsset is one file of the reference, with its gzip rendering and tag.
type docAsset struct {
	name, contentType string
	once              sync.Once
	plain, gz         []byte
	etag              string
}

func (a *docAsset) load() {
	a.plain, _ = apidocs.ReadFile("apidocs/" + a.name) // embedded: cannot fail
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // valid level: no error
	_, _ = zw.Write(a.plain)
	_ = zw.Close()
	a.gz = buf.Bytes()
	sum := sha256.Sum256(a.plain)
	a.etag = `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

// serve answers the asset, gzip-compressed when the caller accepts it
// (compressed once, on first request, then kept), revalidated by ETag.
func (a *docAsset) serve(w http.ResponseWriter, r *http.Request) {
	a.once.Do(a.load)
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.plain
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip reports whether Accept-Encoding welcomes gzip (named, or *,
// with a q above 0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

// serveDocs mounts the reference page and its scripts under /api/docs.
func serveDocs(mux *http.ServeMux) {
	page := &docAsset{name: "index.html", contentType: "text/html; charset=utf-8"}
	for _, p := range []string{"GET /api/docs", "GET /api/docs/{$}"} {
		mux.HandleFunc(p, page.serve)
	}
	for _, a := range []*docAsset{
		{name: "scalar.js", contentType: "text/javascript; charset=utf-8"},
		{name: "init.js", contentType: "text/javascript; charset=utf-8"},
	} {
		mux.HandleFunc("GET /api/docs/"+a.name, a.serve)
	}
}
