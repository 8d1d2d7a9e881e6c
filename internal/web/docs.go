package web

import (
	_ "embed"
	"net/http"
)

//go:embed docs.html
var docsPage []byte

// serveDocs serves a self-contained reference page (no CDN: intranets are
// often offline) that renders /api/v1/openapi.json.
func serveDocs(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	_, _ = w.Write(docsPage)
}
