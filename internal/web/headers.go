package web

import (
	"net/http"
	"strings"
)

// SecurityHeaders sets the browser-facing safety headers on every answer
// (OWASP ASVS 5.0 chapter 3): JSON is never rendered, framed or sniffed as
// something else, no Referer leaves the portal, and answers that carry
// credentials or personal data (every call made with a token or the session
// cookie, and the sign-in/out answers, which carry the token) are never
// stored by a browser or proxy cache. A handler that serves another kind of
// content (the API reference page, downloads, avatars) may replace these.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if carriesCredentials(r) || strings.HasPrefix(r.URL.Path, Prefix+"/auth/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// SessionCookie is the name of the session cookie (CONTRACT.md: core_token).
const SessionCookie = "core_token"

func carriesCredentials(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" {
		return true
	}
	for _, c := range r.Cookies() {
		if c.Name == SessionCookie {
			return true
		}
	}
	return false
}

// CSRFHeader and CSRFValue form the header that every write authenticated by
// the session cookie must carry (X-Requested-With: CorePortal). A cross-site
// HTML form cannot send a header, and a cross-site script that adds it
// needs a CORS preflight, which the API never approves.
const (
	CSRFHeader = "X-Requested-With"
	CSRFValue  = "CorePortal"
)
