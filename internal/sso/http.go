package sso

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// CardFunc returns the full card of a user (the users service).
type CardFunc func(ctx context.Context, userID string) (any, error)

// Handler serves single sign-on.
type Handler struct {
	svc  *Service
	card CardFunc
}

// NewHandler builds the handler.
func NewHandler(svc *Service, card CardFunc) *Handler { return &Handler{svc: svc, card: card} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	m := web.Op(http.MethodGet, "/auth/methods", "getSignInMethods", "Sign-in methods offered", web.Public, "auth")
	m.Description = "Tells the sign-in screen which methods exist: password (always), oidc (a button opening oidc.startUrl, when OpenID Connect is configured in GET /admin/settings/oidc and service oidc is enabled) and negotiate (Windows integrated sign-in, when CORE_KERBEROS_KEYTAB is set)."
	web.Register(api, m, h.methods)

	get := web.Op(http.MethodGet, "/admin/settings/oidc", "getOidcSettings", "OpenID Connect settings (config of service oidc)", web.Admin, "auth")
	get.Description += " The client secret is never returned: hasClientSecret says whether one is stored. Register the redirect URI <public URL>" + CallbackPath + " at the provider (the public URL is CORE_PUBLIC_URL, else the scheme and host the browser used)."
	web.Register(api, get, h.get)
	put := web.Op(http.MethodPut, "/admin/settings/oidc", "putOidcSettings", "Replace the OpenID Connect settings", web.Admin, "auth")
	put.Description += " Omit clientSecret or send ******** to keep the stored one (only while issuer and clientId stay the same); an empty string clears it. " +
		"matchBy=login (default) finds an existing account whose login equals the login claim (default preferred_username, else the e-mail); matchBy=email finds the one account with the ID token's e-mail, only when email_verified is true. " +
		"Without a match a domain user (auth_source domain) is created. Every name of the groups claim (default groups) that equals the name of a domain_linked group (any case) adds the user to it; nothing is removed (ad-sync owns full membership) and portal groups are never touched. " +
		"With allowedDomains set, only identities whose verified e-mail is in one of them may sign in. Discovery is cached for an hour; the provider's keys (JWKS) are fetched again when a token names an unknown key (key rotation)."
	web.Register(api, put, h.put)

	start := web.Op(http.MethodGet, "/auth/oidc/start", "startOidcSignIn", "Start an OpenID Connect sign-in (redirect to the provider)", web.Public, "auth")
	start.Description = "Redirects (302) to the provider's authorization endpoint: authorization code flow with PKCE (S256), a random state and nonce. State, nonce, the PKCE verifier and returnTo travel in the signed cookie " + FlowCookie +
		" (HttpOnly, SameSite=Lax, 10 minutes, path " + web.Prefix + "/auth/oidc), so the callback only completes in the browser that started the flow. 404 when OpenID Connect is not configured; 503 when the provider cannot be reached."
	start.Responses = map[string]*huma.Response{"404": {Description: "NOT_FOUND: OpenID Connect is not configured"},
		"503": {Description: "UNAVAILABLE: the identity provider cannot be reached"}}
	start = web.Answers(start, http.StatusFound)
	web.Register(api, start, h.start)

	cb := web.Op(http.MethodGet, "/auth/oidc/callback", "oidcCallback", "Complete an OpenID Connect sign-in", web.Public, "auth")
	cb.Description = "The provider's redirect back: checks state against the flow cookie, exchanges the code (with the PKCE verifier), verifies the ID token (signature by the provider's keys, issuer, audience, expiry, nonce), finds or creates the user (see PUT /admin/settings/oidc) and sets the same core_token session cookie as POST /auth/login, then redirects (302) to returnTo of the start (a path of this site, default /). " +
		"A state or cookie that does not match, a refused code, an expired or wrongly signed ID token or a wrong nonce answer 401 UNAUTHORIZED and start no session; so does an identity that is not allowed (e-mail domain, deactivated account, login held by another account)."
	cb.Responses = map[string]*huma.Response{"401": {Description: "UNAUTHORIZED: the sign-in was refused"},
		"404": {Description: "NOT_FOUND: OpenID Connect is not configured"}, "503": {Description: "UNAVAILABLE: the identity provider cannot be reached"}}
	cb = web.Answers(cb, http.StatusFound)
	web.Register(api, cb, h.callback)

	neg := web.Op(http.MethodGet, "/auth/negotiate", "negotiateSignIn", "Windows integrated sign-in (Kerberos / SPNEGO)", web.Public, "auth")
	neg.Description = "Only when CORE_KERBEROS_KEYTAB is set (else 404 NOT_FOUND, like an unknown route). Without an Authorization: Negotiate header it answers 401 with WWW-Authenticate: Negotiate, which makes a domain-joined browser send a Kerberos ticket for HTTP/<host> (SPNEGO; Kerberos 5 only, NTLM is never offered nor accepted). " +
		"A valid ticket for the configured service principal (CORE_KERBEROS_SPN, default the keytab's first principal) of the keytab's realm signs in the domain user (auth_source domain, e.g. synchronised by ad-sync) whose login is the principal's name: the answer is that of POST /auth/login (token, core_token cookie). " +
		"A ticket for another service, an expired ticket, a replayed authenticator, a principal of another realm or without a domain user answer 401 (with WWW-Authenticate: Negotiate)."
	neg.Responses = map[string]*huma.Response{"404": {Description: "NOT_FOUND: Windows integrated sign-in is not configured (no CORE_KERBEROS_KEYTAB)"}, "401": {Description: "UNAUTHORIZED: send a Kerberos ticket", Headers: map[string]*huma.Param{
		"WWW-Authenticate": {Description: "Negotiate", Schema: &huma.Schema{Type: huma.TypeString}}}}}
	web.Register(api, neg, h.negotiate)
}

func (h *Handler) methods(ctx context.Context, _ *struct{}) (*web.Out[SignInMethods], error) {
	return web.Reply(h.svc.Methods(ctx))
}

func (h *Handler) get(ctx context.Context, _ *struct{}) (*web.Out[OIDCSettings], error) {
	return web.Reply(h.svc.Settings(ctx))
}

// OIDCSettingsPut is the body of PUT /admin/settings/oidc; the read-only
// properties of the GET are accepted and ignored.
type OIDCSettingsPut struct {
	web.ReadOnlyFrom[OIDCSettings]
	OIDCSettingsInput
}

type putIn struct{ Body OIDCSettingsPut }

func (h *Handler) put(ctx context.Context, in *putIn) (*web.Out[OIDCSettings], error) {
	return web.Reply(h.svc.SaveSettings(ctx, in.Body.OIDCSettingsInput))
}

// hostOf records the scheme-less host the browser used (the base of the
// redirect URI when CORE_PUBLIC_URL is unset).
type hostOf struct{ host string }

// Resolve implements huma.Resolver.
func (b *hostOf) Resolve(hc huma.Context) []error {
	b.host = hc.Host()
	return nil
}

func (b *hostOf) base(ctx context.Context) string {
	if auth.ClientFrom(ctx).TLS {
		return "https://" + b.host
	}
	return "http://" + b.host
}

type startIn struct {
	hostOf
	ReturnTo string `query:"returnTo" maxLength:"1000" doc:"path of this site to open after sign-in (default /)"`
}

type redirectOut struct {
	Status    int
	Location  string        `header:"Location"`
	SetCookie []http.Cookie `header:"Set-Cookie"`
}

func (h *Handler) start(ctx context.Context, in *startIn) (*redirectOut, error) {
	u, sealed, err := h.svc.Start(ctx, in.base(ctx), in.ReturnTo)
	if err != nil {
		return nil, err
	}
	c := http.Cookie{Name: FlowCookie, Value: sealed, Path: web.Prefix + "/auth/oidc", MaxAge: int(flowTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: auth.ClientFrom(ctx).TLS}
	return &redirectOut{Status: http.StatusFound, Location: u, SetCookie: []http.Cookie{c}}, nil
}

type callbackIn struct {
	hostOf
	Code  string `query:"code" maxLength:"4096"`
	State string `query:"state" maxLength:"512"`
	Error string `query:"error" maxLength:"200" doc:"set by the provider when the person cancelled or was refused"`
	Flow  string `cookie:"core_oidc" maxLength:"4096" doc:"the signed flow cookie set by /auth/oidc/start"`
}

func (h *Handler) callback(ctx context.Context, in *callbackIn) (*redirectOut, error) {
	clear := http.Cookie{Name: FlowCookie, Value: "", Path: web.Prefix + "/auth/oidc", MaxAge: -1, Expires: time.Unix(0, 0),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: auth.ClientFrom(ctx).TLS}
	if in.Error != "" {
		return nil, errFlow
	}
	sess, returnTo, err := h.svc.Callback(ctx, in.base(ctx), in.Flow, in.State, in.Code, auth.ClientFrom(ctx).Address)
	if err != nil {
		return nil, err
	}
	return &redirectOut{Status: http.StatusFound, Location: returnTo, SetCookie: []http.Cookie{auth.SessionCookie(ctx, sess), clear}}, nil
}

type negotiateIn struct {
	Authorization string `header:"Authorization" maxLength:"65536" doc:"Negotiate <SPNEGO token, base64>"`
}

type negotiateSession struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
	User      any       `json:"user"`
}

type negotiateOut struct {
	SetCookie       http.Cookie `header:"Set-Cookie"`
	WWWAuthenticate string      `header:"WWW-Authenticate" doc:"Negotiate with the final SPNEGO answer (accept-completed)"`
	Body            web.Envelope[negotiateSession]
}

// acceptCompleted is the SPNEGO NegTokenResp negState=accept-completed.
const acceptCompleted = "Negotiate oRQwEqADCgEAoQsGCSqGSIb3EgECAg=="

func (h *Handler) negotiate(ctx context.Context, in *negotiateIn) (*negotiateOut, error) {
	if h.svc.kerberos == nil {
		return nil, fault.New(fault.CodeNotFound, "no route for GET %s/auth/negotiate", web.Prefix)
	}
	sess, err := h.svc.Negotiate(ctx, in.Authorization, auth.ClientFrom(ctx).Address)
	if err != nil {
		return nil, web.WithHeader(ctx, err, "WWW-Authenticate", "Negotiate")
	}
	card, err := h.card(ctx, sess.UserID)
	if err != nil {
		return nil, err
	}
	return &negotiateOut{SetCookie: auth.SessionCookie(ctx, sess), WWWAuthenticate: acceptCompleted,
		Body: web.Envelope[negotiateSession]{Success: true, Data: negotiateSession{Token: sess.Token, ExpiresAt: sess.ExpiresAt.UTC(), User: card}}}, nil
}
