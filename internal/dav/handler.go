// Package dav serves the document libraries over WebDAV (class 1 and 2) at
// /dav/: one tree of nodes, libraries, folders and files as the caller may
// see it, built over the libraries service so that every rule of the API
// holds (rights, isolated files, versions, the recycle bin, search, audit,
// locks). golang.org/x/net/webdav speaks the protocol; FS and lockSys adapt
// it to the services per request.
package dav

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/webdav"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/filelock"
	"coreportal/internal/web"
)

// Prefix is where the tree is served.
const Prefix = "/dav"

// AppPasswords checks app passwords for HTTP Basic (internal/apppass).
type AppPasswords interface {
	Check(ctx context.Context, login, token, address string) (*auth.Principal, error)
}

// Handler is the /dav/ endpoint.
type Handler struct {
	svc       *Services
	auth      *auth.Service
	apps      AppPasswords
	locks     *filelock.Store
	allowHTTP bool // CORE_PUBLIC_URL is http: Basic over plain http allowed

	mu    sync.Mutex
	basic map[[32]byte]basicHit // recent good passwords (not app passwords), 5 minutes
}

type basicHit struct {
	user    string
	version int // the account's token generation: a password change ends the hit
	at      time.Time
}

const basicTTL = 5 * time.Minute

// New builds the handler.
func New(svc *Services, a *auth.Service, apps AppPasswords, locks *filelock.Store, allowHTTP bool) *Handler {
	return &Handler{svc: svc, auth: a, apps: apps, locks: locks, allowHTTP: allowHTTP, basic: map[[32]byte]basicHit{}}
}

// Mount adds /dav/ to mux (every method).
func (h *Handler) Mount(mux *http.ServeMux) {
	// per method: a pattern of every method would conflict with "GET /" of the console
	for _, m := range methods {
		mux.Handle(m+" "+Prefix+"/", h)
	}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions, "PROPFIND"} {
		mux.Handle(m+" "+Prefix, http.RedirectHandler(Prefix+"/", http.StatusMovedPermanently))
	}
}

// methods are those of WebDAV class 1 and 2.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions,
	"MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "PROPFIND", "PROPPATCH"}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("MS-Author-Via", "DAV")
	p, ok := h.signIn(w, r)
	if !ok {
		return
	}
	if p.ReadOnlyCredential() && writeMethod(r.Method) {
		http.Error(w, "this app password is read-only", http.StatusForbidden)
		return
	}
	if !cleanNames(w, r) {
		return
	}
	if hidden(r.URL.Path) && r.Method == http.MethodPut {
		// AppleDouble and .DS_Store: accepted and dropped (see hidden)
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 16<<20))
		w.WriteHeader(http.StatusCreated)
		return
	}
	var body []byte
	if r.Method == "PROPFIND" || r.Method == "PROPPATCH" {
		if body, ok = checkXMLBody(w, r); !ok {
			return
		}
	}
	if r.Method == "PROPFIND" {
		// as Nextcloud (sabre/dav): no Depth and Depth: infinity are answered as Depth: 1
		if d := strings.TrimSpace(r.Header.Get("Depth")); d == "" || strings.EqualFold(d, "infinity") {
			r.Header.Set("Depth", "1")
		}
	}
	ctx := auth.WithPrincipal(r.Context(), p)
	r = r.WithContext(ctx)
	fs := newFS(h.svc, p, r)
	if r.Method == "PROPFIND" && h.fastPropfind(w, r, fs, body) {
		return
	}
	dh := &webdav.Handler{Prefix: Prefix, FileSystem: fs, LockSystem: &lockSys{fs: fs, ctx: ctx, method: r.Method, store: h.locks},
		Logger: func(r *http.Request, err error) {
			if err != nil && !fault.Is(err, fault.CodeNotFound) {
				slog.DebugContext(r.Context(), "webdav", "method", r.Method, "path", r.URL.Path, "error", err)
			}
		}}
	dh.ServeHTTP(&statusWriter{ResponseWriter: w, fs: fs}, r)
}

// cleanNames refuses (400) a PUT, MKCOL or LOCK of a name, or a COPY or
// MOVE to one, that the libraries service would store cleaned (control
// characters, bidirectional marks, a backslash, outer spaces, too long):
// stored under the cleaned name, it could become a version of another file.
func cleanNames(w http.ResponseWriter, r *http.Request) bool {
	var target string
	switch r.Method {
	case http.MethodPut, "MKCOL", "LOCK":
		target = r.URL.Path
	case "COPY", "MOVE":
		u, err := url.Parse(r.Header.Get("Destination"))
		if err != nil {
			return true // webdav's handler answers a bad Destination
		}
		target = u.Path
	default:
		return true
	}
	clean := path.Clean("/" + target)
	if clean == "/" {
		return true
	}
	base := path.Base(clean)
	if web.UploadName(base) != base || len(base) > 255 {
		http.Error(w, "the name is not allowed: no control characters, bidirectional marks or backslashes, at most 255 bytes", http.StatusBadRequest)
		return false
	}
	return true
}

func writeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, "PROPFIND":
		return false
	}
	return true
}

// statusWriter answers a service error's own status (403, 409, 413, 423…)
// where webdav's handler would answer a generic one.
type statusWriter struct {
	http.ResponseWriter
	fs    *FS
	wrote bool
	was   int // the status webdav's handler chose, when replaced
	code  int // the status answered
}

func (s *statusWriter) WriteHeader(code int) {
	if s.wrote {
		return
	}
	s.wrote = true
	if code >= 400 && s.fs.failed != nil {
		if st := statusOf(s.fs.failed); st != 0 && st != code {
			s.was, code = code, st
		}
	}
	if code == http.StatusOK && s.fs.lockCreated {
		code = http.StatusCreated // a LOCK of an unmapped URL made the file
	}
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.wrote {
		s.WriteHeader(http.StatusOK)
	}
	if s.was != 0 && string(b) == webdav.StatusText(s.was) {
		// webdav's body names its own status: name the one answered
		s.was = 0
		if _, err := s.ResponseWriter.Write([]byte(webdav.StatusText(s.code))); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func statusOf(err error) int {
	fe, ok := fault.As(err)
	if !ok {
		return 0
	}
	switch fe.Code {
	case fault.CodeValidation:
		return http.StatusBadRequest
	case fault.CodeUnauthorized:
		return http.StatusUnauthorized
	case fault.CodeForbidden:
		return http.StatusForbidden
	case fault.CodeNotFound:
		return http.StatusNotFound
	case fault.CodeConflict:
		return http.StatusConflict
	case fault.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case fault.CodeFileLocked, fault.CodeReadOnly:
		return http.StatusLocked
	case fault.CodeRateLimited:
		return http.StatusTooManyRequests
	case fault.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return 0
}

// signIn reads HTTP Basic: an app password, or the login's password checked
// as sign-in does (throttled, audited; a good one is remembered for five
// minutes by a hash of login and password). Basic is refused over plain
// http unless the caller is on a loopback address or CORE_PUBLIC_URL is http.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) (*auth.Principal, bool) {
	ctx := r.Context()
	client := auth.ClientFrom(ctx)
	if !client.TLS && !h.allowHTTP && !loopback(client.Address) {
		http.Error(w, "WebDAV sign-in needs https", http.StatusForbidden)
		return nil, false
	}
	login, password, ok := r.BasicAuth()
	if !ok || login == "" || password == "" {
		if p := auth.FromContext(ctx); p != nil { // a bearer token (scripts)
			return p, true
		}
		challenge(w, "authentication required")
		return nil, false
	}
	p, err := h.check(ctx, login, password, client.Address)
	if err != nil {
		if fe, ok := fault.As(err); ok && fe.Code == fault.CodeRateLimited {
			if s, ok := fe.Details["retryAfterSeconds"]; ok {
				w.Header().Set("Retry-After", fmt.Sprint(s))
			}
			http.Error(w, fe.Message, http.StatusTooManyRequests)
			return nil, false
		}
		if fault.Is(err, fault.CodeUnauthorized) || fault.Is(err, fault.CodeValidation) {
			challenge(w, "invalid login or password")
			return nil, false
		}
		slog.ErrorContext(ctx, "webdav sign-in", "error", err)
		http.Error(w, "sign-in failed", http.StatusServiceUnavailable)
		return nil, false
	}
	return p, true
}

func (h *Handler) check(ctx context.Context, login, password, address string) (*auth.Principal, error) {
	if strings.HasPrefix(password, auth.AppTokenPrefix) && h.apps != nil {
		if p, err := h.apps.Check(ctx, login, password, address); err == nil || !fault.Is(err, fault.CodeUnauthorized) {
			return p, err
		}
	}
	key := sha256.Sum256([]byte(strings.ToLower(login) + "\x00" + password + "\x00" + address))
	h.mu.Lock()
	hit, ok := h.basic[key]
	h.mu.Unlock()
	if ok && time.Since(hit.at) < basicTTL {
		// the throttle first: a throttled login is refused whatever the
		// password, or the remembered one would tell a guesser it is right
		if err := h.auth.BasicHeld(ctx, login, address); err != nil {
			return nil, err
		}
		p, err := h.auth.PrincipalFor(ctx, hit.user)
		if err == nil && p.TokenVersion == hit.version {
			return p, nil
		}
	}
	p, err := h.auth.BasicLogin(ctx, login, password, address)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if len(h.basic) > 10000 {
		clear(h.basic)
	}
	h.basic[key] = basicHit{user: p.UserID, version: p.TokenVersion, at: time.Now()}
	h.mu.Unlock()
	return p, nil
}

func challenge(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Basic realm="Core Portal", charset="UTF-8"`)
	http.Error(w, msg, http.StatusUnauthorized)
}

func loopback(addr string) bool {
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}

// maxXMLBody bounds PROPFIND and PROPPATCH bodies (read whole to check them).
const maxXMLBody = 1 << 20

// badNSDecl is an empty prefixed namespace declaration (xmlns:p=""), not
// allowed by Namespaces in XML 1.0 and not refused by encoding/xml.
var badNSDecl = regexp.MustCompile(`xmlns:[^\s=/>]+\s*=\s*(""|'')`)

// checkXMLBody reads a PROPFIND or PROPPATCH body and refuses (400) one
// declaring an empty namespace prefix, (413) one over 1 MiB.
func checkXMLBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxXMLBody+1))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return nil, false
	}
	if len(body) > maxXMLBody {
		http.Error(w, "the body is larger than 1 MiB", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	if badNSDecl.Match(body) {
		http.Error(w, "invalid namespace declaration", http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}
