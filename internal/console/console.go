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

// RunnerPath is the page that runs a list form's script: the console embeds
// it in an iframe with sandbox="allow-scripts" (an opaque origin, so the
// script can neither call the API with the session nor read the console).
// The page evaluates the administrator's script, which the console's CSP
// forbids, so it has its own policy: scripts from the portal and eval, no
// network, always sandboxed, framed only by the console.
const RunnerPath = "/assets/form-runner.html"

const runnerScript = "/assets/form-runner.js"

// RunnerCSP is the Content-Security-Policy of RunnerPath.
const RunnerCSP = "default-src 'none'; script-src 'self' 'unsafe-eval'; style-src 'self'; connect-src 'none'; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-scripts"

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
		case p == RunnerPath || p == runnerScript:
			// fixed names (not content-hashed): revalidated, never cached for good
			if p == RunnerPath {
				w.Header().Set("Content-Security-Policy", RunnerCSP)
			}
			w.Header().Set("Cache-Control", "no-cache")
			files.ServeHTTP(w, r)
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
