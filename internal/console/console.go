// Package console serves the web console's build (package ui) at every path
// that is not the API: files under /assets/ as they are, anything else the
// console's index.html, whose router opens the screen of the path.
package console

import (
	"io/fs"
	"net/http"
	"strings"

	"coreportal/internal/web"
	"coreportal/ui"
)

// CSP is the console's Content-Security-Policy: scripts, styles and calls only
// from the portal itself; form scripts run in a sandboxed srcdoc frame.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-src 'self'; frame-ancestors 'none'"

// Handler answers the console; API paths that reach it are unknown routes.
func Handler() http.Handler {
	dist, err := fs.Sub(ui.Dist, "dist")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(dist)
	index, _ := fs.ReadFile(dist, "index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/api/") || p == "/api":
			web.NotFound(w, r)
		case strings.HasPrefix(p, "/assets/"):
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			files.ServeHTTP(w, r)
		default:
			h := w.Header()
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-cache")
			h.Set("Content-Security-Policy", CSP)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "same-origin")
			_, _ = w.Write(index)
		}
	})
}
