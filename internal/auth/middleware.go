package auth

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// CookieName is the session cookie of CONTRACT.md.
const CookieName = web.SessionCookie

type credErrKey struct{}
type clientKey struct{}

// Client is what the transport knows of the caller.
type Client struct {
	Address string
	TLS     bool
}

// ClientFrom returns the caller's address and transport.
func ClientFrom(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

// Middleware reads the bearer token or the core_token cookie. A valid one
// binds the principal; an invalid one is remembered so that protected
// operations answer 401 while public ones still work.
func (s *Service) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		ctx = context.WithValue(ctx, clientKey{}, Client{Address: s.clientAddress(r), TLS: s.overTLS(r)})
		tok, fromCookie := tokenOf(r)
		if fromCookie && unsafeMethod(r.Method) {
			if err := checkCookieWrite(r, s.corsOrigins); err != nil {
				web.WriteError(w, r, err)
				return
			}
		}
		if tok != "" {
			p, err := s.authenticateToken(ctx, tok, fromCookie)
			if err != nil {
				ctx = context.WithValue(ctx, credErrKey{}, err)
			} else if err := readOnlyWrite(p, r); err != nil {
				ctx = context.WithValue(ctx, credErrKey{}, err)
			} else {
				ctx = WithPrincipal(ctx, p)
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// SetCORSOrigins names the other origins (CORE_CORS_ORIGINS) whose
// scripts may write with the session cookie (still with the CSRF header).
func (s *Service) SetCORSOrigins(origins []string) { s.corsOrigins = origins }

// SetTrustedProxies names the reverse proxies whose X-Forwarded-For and
// X-Forwarded-Proto are believed.
func (s *Service) SetTrustedProxies(p []netip.Prefix) { s.proxies = p }

// SetPublicHTTPS says that users reach the portal over https (CORE_PUBLIC_URL
// is https): the session cookie is then always Secure.
func (s *Service) SetPublicHTTPS(on bool) { s.publicHTTPS = on }

// overTLS reports whether the caller reached the portal over https: directly,
// through a trusted proxy that says so in X-Forwarded-Proto, or because the
// portal is published at an https address.
func (s *Service) overTLS(r *http.Request) bool {
	if r.TLS != nil || s.publicHTTPS {
		return true
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if !s.trusted(host) {
		return false
	}
	// the proxy nearest to us appends last
	protos := strings.Split(strings.Join(r.Header.Values("X-Forwarded-Proto"), ","), ",")
	return strings.EqualFold(strings.TrimSpace(protos[len(protos)-1]), "https")
}

// ClientAddress is the caller's address of r as the rest of the service
// sees it (the access log, which runs before Middleware).
func (s *Service) ClientAddress(r *http.Request) string { return s.clientAddress(r) }

// clientAddress is the peer address, or, when the peer is a trusted proxy,
// the right-most address of X-Forwarded-For that is not a trusted proxy.
func (s *Service) clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(s.proxies) == 0 || !s.trusted(host) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		h := strings.TrimSpace(hops[i])
		if _, err := netip.ParseAddr(h); err != nil {
			break
		}
		if !s.trusted(h) {
			return h
		}
	}
	return host
}

func (s *Service) trusted(ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range s.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// tokenOf returns the bearer token, else the cookie's (fromCookie true).
func tokenOf(r *http.Request) (token string, fromCookie bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:]), false
		}
		return "", false
	}
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		return c.Value, true
	}
	return "", false
}

func unsafeMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions
}

// checkCookieWrite guards writes authenticated by the session cookie against
// cross-site request forgery: SameSite=Lax stops other sites' POSTs but not
// those of sibling (same-site) hosts or of forms. Such a write must carry
// X-Requested-With: CorePortal (a form cannot send it, a cross-origin script
// only after a preflight the API never approves); a browser always sends
// Origin on such requests, so a foreign Origin is refused; and a body must
// declare its Content-Type. Sign-in needs no header: it starts a session,
// and a stale cookie must not stand in its way.
func checkCookieWrite(r *http.Request, corsOrigins []string) error {
	signIn := r.URL.Path == web.Prefix+"/auth/login"
	if !signIn && !strings.EqualFold(strings.TrimSpace(r.Header.Get(web.CSRFHeader)), web.CSRFValue) {
		return fault.Forbidden("a write authenticated by the core_token cookie must carry the header %s: %s (or use a bearer token)",
			web.CSRFHeader, web.CSRFValue).With("header", web.CSRFHeader)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if (err != nil || !strings.EqualFold(u.Host, r.Host)) && !web.OriginListed(corsOrigins, o) {
			return fault.Forbidden("cross-origin write with the session cookie refused; use a bearer token")
		}
	}
	if r.ContentLength != 0 && r.Header.Get("Content-Type") == "" {
		return fault.Validation("", "Content-Type is required for writes authenticated by the session cookie")
	}
	return nil
}

// Require returns the caller or the 401 error to answer.
func Require(ctx context.Context) (*Principal, error) {
	if p := FromContext(ctx); p != nil {
		return p, nil
	}
	if err, ok := ctx.Value(credErrKey{}).(error); ok {
		return nil, err
	}
	return nil, fault.Unauthorized("authentication required")
}

// RequireAdmin returns the caller when it has role core_admin.
func RequireAdmin(ctx context.Context) (*Principal, error) {
	p, err := Require(ctx)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, fault.Forbidden("administrator role required")
	}
	return p, nil
}

// Policy enforces each operation's web.Policy before its handler runs.
func Policy(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(hctx huma.Context, next func(huma.Context)) {
		var err error
		switch web.PolicyOf(hctx.Operation()) {
		case web.Public:
		case web.Admin:
			_, err = RequireAdmin(hctx.Context())
		default:
			_, err = Require(hctx.Context())
		}
		if err != nil {
			ae := web.FromError(hctx.Context(), err)
			_ = huma.WriteErr(api, hctx, ae.GetStatus(), ae.Err.Message)
			return
		}
		next(hctx)
	}
}
