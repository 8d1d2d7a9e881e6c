package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// CardFunc returns the full card of a user (the users service).
type CardFunc func(ctx context.Context, userID string) (any, error)

// Handler serves sign-in and sign-out.
type Handler struct {
	svc  *Service
	card CardFunc
}

// NewHandler builds the sign-in handler.
func NewHandler(svc *Service, card CardFunc) *Handler { return &Handler{svc: svc, card: card} }

type loginIn struct {
	Body struct {
		Login    string `json:"login" minLength:"1" maxLength:"256" doc:"sign-in name"`
		Password string `json:"password" minLength:"1" maxLength:"1024"`
		AuthType string `json:"authType,omitempty" enum:"local,domain" doc:"local (default) or domain"`
	}
}

type loginData struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
	User      any       `json:"user"`
}

type loginOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      web.Envelope[loginData]
}

type logoutOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      web.Envelope[any]
}

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	in := web.Op(http.MethodPost, "/auth/login", "login", "Sign in: a JWT and the core_token cookie", web.Public, "auth")
	in.Description = "Sign in; returns a JWT and sets the core_token cookie (HttpOnly, SameSite=Lax; Secure when the request came over https, through a proxy of CORE_TRUSTED_PROXIES that says so in X-Forwarded-Proto, or when CORE_PUBLIC_URL is https). Failed attempts are throttled per (login, client address): 5 per 15 minutes, then 429 RATE_LIMITED for that pair, except for a call that carries a valid session (bearer token or core_token cookie) of the same login, which is its owner's; per client address: past 20 failures in 15 minutes, attempts of logins that are not trusted on that address are spaced by a delay that doubles with each further failure from 1 s up to 60 s (429 RATE_LIMITED with details.retryAfterSeconds inside it; never a block for the window), while a trusted login passes: one that signed in successfully from that address within the last 30 days, or a call that carries a valid session (bearer token or core_token cookie) of the same login, so guessing from an office's shared address (NAT, a proxy missing from CORE_TRUSTED_PROXIES) cannot keep its users out (their own pair limit still applies); the first slowed attempt of an address in a window is logged once per instance as a warning naming the address, with a hint to check CORE_TRUSTED_PROXIES; per login across addresses: past 20 failures in an hour, attempts are spaced by a delay that doubles with each failure from 1 s up to 30 s (429 RATE_LIMITED with details.retryAfterSeconds inside it), except for a trusted login as above (a spray from elsewhere cannot keep the owner out). Every 429 carries a Retry-After header equal to details.retryAfterSeconds. An IPv6 client address is counted by its /64. The counters are shared by every instance. An attempt in flight holds a slot of its pair and address until it ends; an attempt that finds the free slots taken only by attempts in flight waits for one (up to 5 s), so parallel correct sign-ins of one login from one address all pass; recorded failures refuse at once." +
		" authType=domain signs in against the directory (GET /admin/settings/ldap): the service account finds the entry with userFilter ({{username}} escaped per RFC 4515), then the password is checked by binding as that entry (an empty password is refused before any bind);" +
		" the local domain user is created or updated from the entry (matched by external_id). Wrong login or password: 401 like local sign-in (throttled alike); directory not configured: 400 on authType; directory unreachable, refusing the service account or not allowed by CORE_DIRECTORY_ALLOWED_HOSTS: 503 UNAVAILABLE with the message \"directory unavailable\" and nothing else (not counted as a failure; the application log has the detail for operators)."
	in.Responses = map[string]*huma.Response{"401": {Description: "UNAUTHORIZED: wrong login or password"}}
	web.Register(api, in, h.login)
	out := web.Op(http.MethodPost, "/auth/logout", "logout", "Sign out: revoke the token and clear the cookie", web.Public, "auth")
	out.Description = "Sign out: revokes the token the call carries (bearer or core_token cookie) on every instance until it expires, and clears the cookie. Without a valid token it only clears the cookie."
	out.Responses = map[string]*huma.Response{"403": {Description: "FORBIDDEN: the call carries the core_token cookie but not the header " + web.CSRFHeader + ": " + web.CSRFValue}}
	web.Register(api, out, h.logout)
}

func (h *Handler) login(ctx context.Context, in *loginIn) (*loginOut, error) {
	client := ClientFrom(ctx)
	sess, err := h.svc.Login(ctx, in.Body.Login, in.Body.Password, in.Body.AuthType, client.Address)
	if err != nil {
		return nil, err
	}
	card, err := h.card(ctx, sess.UserID)
	if err != nil {
		return nil, err
	}
	out := &loginOut{Body: web.Envelope[loginData]{Success: true, Data: loginData{Token: sess.Token, ExpiresAt: sess.ExpiresAt.UTC(), User: card}}}
	out.SetCookie = SessionCookie(ctx, sess)
	return out, nil
}

func (h *Handler) logout(ctx context.Context, _ *struct{}) (*logoutOut, error) {
	if err := h.svc.Logout(ctx); err != nil {
		return nil, err
	}
	out := &logoutOut{Body: web.Envelope[any]{Success: true}}
	out.SetCookie = http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(0, 0),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: ClientFrom(ctx).TLS}
	return out, nil
}
