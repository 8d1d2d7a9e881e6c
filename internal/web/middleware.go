package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/fault"
)

// Chain applies middlewares so that the first one listed runs first.
func Chain(h http.Handler, mws ...func(http.Handler) http.Handler) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// RequestID binds X-Request-Id (accepted from the caller when sane, else
// generated) to the context and echoes it in the response.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(applog.WithCorrelation(r.Context(), id)))
	})
}

func saneID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// StatusRecorder remembers the status written and counts the body bytes.
type StatusRecorder struct {
	http.ResponseWriter
	Status int
	Bytes  int64
}

func (s *StatusRecorder) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusRecorder) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.Bytes += int64(n)
	return n, err
}

// Flush lets SSE handlers stream through the recorder.
func (s *StatusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Observer is told about every finished request (metrics for the dashboard).
type Observer func(status int, elapsed time.Duration)

type accessKey struct{}

// accessNote is what the inner middlewares tell the access log.
type accessNote struct{ user string }

// NoteUser tells the access log of the request which user made it (a
// middleware after authentication calls it).
func NoteUser(ctx context.Context, userID string) {
	if n, ok := ctx.Value(accessKey{}).(*accessNote); ok {
		n.user = userID
	}
}

// AccessLog logs one line per request (when enabled), recovers panics into a
// 500 envelope without internals, and reports to the observer. The line
// (message "http") carries the client address (client(r); nil = the peer
// address), the user id (NoteUser; empty when anonymous), the method, the
// route template (the ServeMux pattern without its method, "unmatched" for
// unknown routes; needs ObserveRoutes outside and CaptureRoute around the
// mux) to group requests by, the raw path to find one, the status, the response body bytes as the
// handler wrote them (before compression) and the duration in ms.
func AccessLog(enabled bool, observe Observer, client func(*http.Request) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := &StatusRecorder{ResponseWriter: w}
			note := &accessNote{}
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					slog.ErrorContext(r.Context(), "panic", "panic", p, "stack", string(debug.Stack()))
					if rec.Status == 0 {
						ae := internalError(r.Context())
						writeJSON(rec, ae.status, ae)
					}
				}
				elapsed := time.Since(start)
				if observe != nil {
					observe(rec.Status, elapsed)
				}
				attrs := accessAttrs(r, rec, note, client, elapsed)
				if r.Context().Err() != nil {
					// Whatever the handler answered, nobody read it.
					slog.InfoContext(r.Context(), "request cancelled: the client went away", attrs...)
					return
				}
				// 503 is an outage the store logs once, 499 a client that left:
				// neither is an error of this request.
				failed := rec.Status >= 500 && rec.Status != http.StatusServiceUnavailable
				if enabled || failed {
					level := slog.LevelInfo
					if failed {
						level = slog.LevelError
					}
					slog.Log(r.Context(), level, "http", attrs...)
				}
			}()
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), accessKey{}, note)))
		})
	}
}

func accessAttrs(r *http.Request, rec *StatusRecorder, note *accessNote, client func(*http.Request) string, elapsed time.Duration) []any {
	addr := ""
	if client != nil {
		addr = client(r)
	}
	if addr == "" {
		addr = peerHost(r.RemoteAddr)
	}
	return []any{"client", addr, "user", note.user, "method", r.Method, "route", RouteTemplate(r.Context()), "path", r.URL.Path,
		"status", rec.Status, "bytes", rec.Bytes, "ms", float64(elapsed.Microseconds()) / 1000}
}

// peerHost is the host part of a RemoteAddr.
func peerHost(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// recoveryWrites are the writes allowed while the licence is not valid: what
// an administrator needs to get the portal writable again. Paths are
// without Prefix; a {name} of a documented path matches as a segment.
var recoveryWrites = []*regexp.Regexp{
	regexp.MustCompile(`^/auth/`),                             // sign in and out, change one's password
	regexp.MustCompile(`^/admin/license(/|$)`),                // activate a licence key
	regexp.MustCompile(`^/internal/`),                         // the update runner (guarded by its token)
	regexp.MustCompile(`^/admin/update/(check|start)$`),       // see whether a release is out; start then answers 409 UPDATE_BLOCKED (license_invalid)
	regexp.MustCompile(`^/admin/users/[^/]+/reset-password$`), // let a locked-out administrator back in
}

// WriteExempt reports whether a write to path (under Prefix) is allowed
// while the licence is not valid. ReadOnlyGate is given it by the server,
// and the OpenAPI document lists 423 on every other write.
func WriteExempt(path string) bool {
	p, ok := strings.CutPrefix(path, Prefix)
	if !ok {
		return false
	}
	for _, re := range recoveryWrites {
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

// ReadOnlyGate refuses writes with 423 LICENSE_READ_ONLY while writable()
// is false; exempt paths (sign-in, licence activation, …) always pass.
func ReadOnlyGate(writable func() bool, exempt func(path string) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			default:
				if strings.HasPrefix(r.URL.Path, Prefix) && !exempt(r.URL.Path) && !writable() {
					WriteError(w, r, fault.New(fault.CodeReadOnly, "the licence is not valid: the portal is read-only until an administrator activates a licence key (POST /api/v1/admin/license/activate, or coreportal license activate --key-file F); GET /api/v1/admin/license says why"))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// NotFound answers unknown routes (and wrong methods) with the envelope.
func NotFound(w http.ResponseWriter, r *http.Request) {
	WriteError(w, r, fault.New(fault.CodeNotFound, "no route for %s %s", r.Method, r.URL.Path))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteJSON writes a success envelope outside Huma.
func WriteJSON(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, Envelope[any]{Success: true, Data: data})
}
