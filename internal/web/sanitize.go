package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/fault"
)

// maxJSONBody bounds what Sanitize buffers; Huma's per-operation limit
// (1 MB by default) still applies after it.
const maxJSONBody = 16 << 20

// Sanitize stops two kinds of input at the edge, once for every operation:
//   - NUL characters and invalid UTF-8 (in the path, the query or a JSON
//     body; see text.go), which PostgreSQL refuses in text, SQLite compares
//     wrongly and Go's decoders silently replace;
//   - non-canonical UUIDs in path segments and in query parameters named
//     …Id / …Ids (urn:uuid:, braces, upper case, 32 hex digits), which are
//     rewritten to the lower-case 8-4-4-4-12 form so every layer compares alike.
func Sanitize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkRequestText(r); err != nil {
			WriteError(w, r, err)
			return
		}
		canonicalPath(r)
		canonicalQuery(r)
		// WOPI bodies are document bytes, whatever their declared type
		if r.Body != nil && r.ContentLength != 0 && isJSON(r.Header.Get("Content-Type")) && !strings.HasPrefix(r.URL.Path, "/wopi/") {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxJSONBody+1))
			if err != nil {
				var be *BodyError
				if !errors.As(err, &be) {
					be = &BodyError{Err: err}
				}
				WriteError(w, r, be)
				return
			}
			if len(body) > maxJSONBody {
				WriteError(w, r, fault.New(fault.CodeTooLarge, "the request body is larger than %d bytes", maxJSONBody))
				return
			}
			if msg := badJSONText(body); msg != "" {
				WriteError(w, r, fault.Validation("", "%s", "the request body contains "+msg))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

func isJSON(ct string) bool {
	ct = strings.ToLower(ct)
	return ct == "" || strings.HasPrefix(ct, "application/json") || strings.Contains(ct, "+json")
}

func canonicalID(s string) (string, bool) {
	if len(s) < 32 || len(s) > 45 {
		return s, false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return s, false
	}
	c := u.String()
	return c, c != s
}

func canonicalPath(r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, Prefix+"/") {
		return
	}
	parts := strings.Split(r.URL.Path, "/")
	changed := false
	for i, p := range parts {
		if c, ok := canonicalID(p); ok {
			parts[i], changed = c, true
		}
	}
	if changed {
		r.URL.Path = strings.Join(parts, "/")
		r.URL.RawPath = ""
	}
}

func canonicalQuery(r *http.Request) {
	if r.URL.RawQuery == "" {
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return
	}
	changed := false
	for key, vals := range q {
		if !strings.HasSuffix(key, "Id") && !strings.HasSuffix(key, "Ids") && key != "id" && key != "ids" {
			continue
		}
		for i, v := range vals {
			items := strings.Split(v, ",")
			for k, item := range items {
				if c, ok := canonicalID(strings.TrimSpace(item)); ok {
					items[k], changed = c, true
				}
			}
			vals[i] = strings.Join(items, ",")
		}
	}
	if changed {
		r.URL.RawQuery = q.Encode()
	}
}
