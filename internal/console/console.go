// Package console serves the web console (the committed build of ui/) at
// the root of the portal: index.html for every console route (the console
// routes in the browser), the hashed build files under /assets/ with a
// year-long immutable cache, each compressed once and kept in memory.
package console

import (
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"coreportal/internal/web"
)

// CSP is the Content-Security-Policy of the console's HTML. No inline
// script or style and no eval: everything the console runs and styles with
// comes from its own files. frame-src 'self' admits the form-script sandbox
// (SandboxFile).
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'; frame-src 'self'"

// SandboxFile is the build's document in which administrators' form scripts
// run, framed by the console as <iframe sandbox="allow-scripts"
// src="/form-sandbox.html">. A srcdoc frame cannot do it: it inherits CSP,
// which refuses eval, blob: and data: scripts alike (checked in Chromium).
// This document gets its own policy, SandboxCSP: an opaque origin (the
// sandbox directive holds even when it is opened on its own) where eval is
// allowed but no request leaves, so a script reaches neither the API nor
// the cookie and talks to the console only through postMessage.
const SandboxFile = "form-sandbox.html"

// SandboxCSP is the Content-Security-Policy of SandboxFile.
const SandboxCSP = "default-src 'none'; script-src 'self' 'unsafe-eval'; style-src 'self'; img-src data:; " +
	"connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts"

// Cache policies: the index names the hashed files of the current build, so
// it is revalidated on every load; a hashed file never changes.
const (
	cacheIndex     = "no-cache"
	cacheImmutable = "public, max-age=31536000, immutable"
)

// reserved are the first path segments that belong to the server, never to
// the console: an unknown path below them answers the JSON 404 envelope.
var reserved = map[string]bool{"api": true, "health": true, "ready": true, "metrics": true, "debug": true}

// Handler serves the console.
type Handler struct {
	files map[string]*file // by URL path, e.g. "/assets/index-3f2a.js"
	index *file
}

// New reads the console's build from dist (index.html at its root, hashed
// files under assets/). The files are held in memory; each text file is
// compressed on its first request and kept.
func New(dist fs.FS) (*Handler, error) {
	h := &Handler{files: map[string]*file{}}
	err := fs.WalkDir(dist, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(dist, name)
		if err != nil {
			return fmt.Errorf("read console file %s: %w", name, err)
		}
		h.files["/"+name] = newFile(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load console build: %w", err)
	}
	h.index = h.files["/index.html"]
	if h.index == nil {
		return nil, fmt.Errorf("load console build: index.html is missing")
	}
	return h, nil
}

// Mount registers the console on mux for GET and HEAD of every path that no
// other route takes. Other methods keep mux's catch-all (the JSON 404).
func (h *Handler) Mount(mux *http.ServeMux) { mux.Handle("GET /", h) }

// ServeHTTP answers a console path: a file of the build, index.html for any
// other path (a console route), 404 for a missing file under /assets/ and
// the JSON 404 envelope for unknown server paths (/api/..., /health/...).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if reserved[first] {
		notFound(w, r)
		return
	}
	if p != "/index.html" {
		if f := h.files[path.Clean(p)]; f != nil && path.Clean(p) == p {
			h.serveFile(w, r, f)
			return
		}
	}
	if strings.HasPrefix(p, "/assets/") {
		notFound(w, r)
		return
	}
	h.serveIndex(w, r)
}

// notFound answers the JSON 404 envelope as an unknown route: the request
// loses the mux's catch-all pattern, so that metrics and logs count it as
// unmatched, not as a console page.
func notFound(w http.ResponseWriter, r *http.Request) {
	r.Pattern = ""
	web.NotFound(w, r)
}

func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cache-Control", cacheIndex)
	h.index.serve(w, r)
}

func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, f *file) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	if strings.HasPrefix(f.name, "assets/") {
		hd.Set("Cache-Control", cacheImmutable)
	} else {
		hd.Set("Cache-Control", cacheIndex)
	}
	switch {
	case f.name == SandboxFile:
		hd.Set("Content-Security-Policy", SandboxCSP)
		hd.Set("Referrer-Policy", "no-referrer")
	case f.html:
		hd.Set("Content-Security-Policy", CSP)
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	}
	f.serve(w, r)
}
