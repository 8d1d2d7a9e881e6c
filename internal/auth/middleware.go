package auth

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// CookieName is the session cookie of CONTRACT.md.
const CookieName = "core_token"

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
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		ctx = context.WithValue(ctx, clientKey{}, Client{Address: host, TLS: r.TLS != nil})
		if tok := tokenOf(r); tok != "" {
			p, err := s.Authenticate(ctx, tok)
			if err != nil {
				ctx = context.WithValue(ctx, credErrKey{}, err)
			} else {
				ctx = WithPrincipal(ctx, p)
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func tokenOf(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:])
		}
		return ""
	}
	if c, err := r.Cookie(CookieName); err == nil {
		return c.Value
	}
	return ""
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
