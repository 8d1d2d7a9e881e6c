package sso

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Paths of the redirect flow (under the API prefix).
const (
	StartPath    = web.Prefix + "/auth/oidc/start"
	CallbackPath = web.Prefix + "/auth/oidc/callback"
	// FlowCookie binds state, nonce and the PKCE verifier to the browser
	// that started the flow.
	FlowCookie = "core_oidc"
	flowTTL    = 10 * time.Minute
	// providerTTL is how long a discovery document is kept; the key set
	// (JWKS) is fetched again at once when a token names an unknown key.
	providerTTL = time.Hour
)

var errFlow = fault.Unauthorized("the sign-in could not be completed: start it again")

// provider is a discovered provider, kept for providerTTL.
type provider struct {
	issuer   string
	p        *oidc.Provider
	verifier *oidc.IDTokenVerifier
	clientID string
	fetched  time.Time
}

type providers struct {
	mu     sync.Mutex
	cur    *provider
	client *http.Client
	now    func() time.Time
}

// get returns the discovered provider of c, discovering it again after
// providerTTL or when the issuer or client changed.
func (ps *providers) get(ctx context.Context, c Config) (*provider, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p := ps.cur; p != nil && p.issuer == c.Issuer && p.clientID == c.ClientID && ps.now().Sub(p.fetched) < providerTTL {
		return p, nil
	}
	// the key set keeps the context of discovery for its later fetches
	bg := oidc.ClientContext(context.WithoutCancel(ctx), ps.client)
	dctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(oidc.ClientContext(dctx, ps.client), c.Issuer)
	if err != nil {
		slog.WarnContext(ctx, "OpenID Connect discovery failed", "issuer", c.Issuer, "err", err)
		return nil, fault.Unavailable("the identity provider cannot be reached")
	}
	var meta struct {
		JWKS string `json:"jwks_uri"`
	}
	if err := op.Claims(&meta); err != nil || meta.JWKS == "" {
		return nil, fault.Unavailable("the identity provider's discovery document has no jwks_uri")
	}
	keys := oidc.NewRemoteKeySet(bg, meta.JWKS)
	v := oidc.NewVerifier(c.Issuer, keys, &oidc.Config{ClientID: c.ClientID, Now: ps.now})
	ps.cur = &provider{issuer: c.Issuer, p: op, verifier: v, clientID: c.ClientID, fetched: ps.now()}
	return ps.cur, nil
}

// flow is what the flow cookie carries, signed.
type flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	ReturnTo string `json:"r"`
	Expires  int64  `json:"e"`
}

func (s *Service) sealFlow(f flow) string {
	raw, _ := json.Marshal(f)
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
}

func (s *Service) openFlow(v string) (flow, bool) {
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return flow{}, false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(body)) {
		return flow{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	var f flow
	if err != nil || json.Unmarshal(raw, &f) != nil || s.now().Unix() > f.Expires {
		return flow{}, false
	}
	return f, true
}

func (s *Service) mac(body string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("oidc-flow\x00" + body))
	return m.Sum(nil)
}

// safeReturn keeps a same-origin path, else "/".
func safeReturn(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") ||
		strings.ContainsAny(p, "\r\n\t\\") || len(p) > 1000 {
		return "/"
	}
	return p
}

func (s *Service) oauthConfig(c Config, p *provider, base string) *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Endpoint: p.p.Endpoint(),
		RedirectURL: s.redirectURL(base), Scopes: c.scopes()}
}

func (s *Service) redirectURL(base string) string {
	if s.publicURL != "" {
		base = s.publicURL
	}
	return strings.TrimRight(base, "/") + CallbackPath
}

// Start begins a sign-in: the provider's authorization URL and the flow cookie value.
func (s *Service) Start(ctx context.Context, base, returnTo string) (string, string, error) {
	c, err := s.config(ctx)
	if err != nil {
		return "", "", err
	}
	if !c.Configured() || !s.enabled(ctx) {
		return "", "", fault.NotFound("OpenID Connect sign-in is not configured")
	}
	p, err := s.providers.get(ctx, c)
	if err != nil {
		return "", "", err
	}
	f := flow{State: auth.RandomPassword() + auth.RandomPassword(), Nonce: auth.RandomPassword() + auth.RandomPassword(),
		Verifier: oauth2.GenerateVerifier(), ReturnTo: safeReturn(returnTo), Expires: s.now().Add(flowTTL).Unix()}
	u := s.oauthConfig(c, p, base).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	return u, s.sealFlow(f), nil
}

// Identity is what the provider said of the person signing in.
type Identity struct {
	Subject       string
	Login         string
	Email         string
	EmailVerified bool
	Name          string
	Groups        []string
}

// Callback completes a sign-in: checks state (against the flow cookie),
// exchanges the code with the PKCE verifier, verifies the ID token
// (signature, issuer, audience, expiry, nonce) and starts the session.
func (s *Service) Callback(ctx context.Context, base, cookie, state, code, address string) (auth.Session, string, error) {
	f, ok := s.openFlow(cookie)
	if !ok || state == "" || !hmac.Equal([]byte(f.State), []byte(state)) {
		slog.InfoContext(ctx, "OpenID Connect callback refused: state does not match the flow cookie", "address", address)
		return auth.Session{}, "", errFlow
	}
	if code == "" {
		return auth.Session{}, "", fault.Validation("code", "the provider returned no code")
	}
	c, err := s.config(ctx)
	if err != nil {
		return auth.Session{}, "", err
	}
	if !c.Configured() || !s.enabled(ctx) {
		return auth.Session{}, "", fault.NotFound("OpenID Connect sign-in is not configured")
	}
	p, err := s.providers.get(ctx, c)
	if err != nil {
		return auth.Session{}, "", err
	}
	xctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, s.providers.client), 15*time.Second)
	defer cancel()
	tok, err := s.oauthConfig(c, p, base).Exchange(xctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		slog.InfoContext(ctx, "OpenID Connect code exchange failed", "err", err)
		return auth.Session{}, "", errFlow
	}
	id, err := s.verify(xctx, c, p, tok, f.Nonce)
	if err != nil {
		return auth.Session{}, "", err
	}
	acc, err := s.account(ctx, c, id)
	if err != nil {
		return auth.Session{}, "", err
	}
	sess, err := s.auth.StartSession(ctx, acc, "oidc", address)
	return sess, f.ReturnTo, err
}

func (s *Service) verify(ctx context.Context, c Config, p *provider, tok *oauth2.Token, nonce string) (Identity, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fault.Unauthorized("the identity provider returned no ID token")
	}
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		var exp *oidc.TokenExpiredError
		if errors.As(err, &exp) {
			slog.InfoContext(ctx, "OpenID Connect ID token expired", "expiry", exp.Expiry)
			return Identity{}, fault.Unauthorized("the ID token has expired")
		}
		slog.InfoContext(ctx, "OpenID Connect ID token refused", "err", err)
		return Identity{}, fault.Unauthorized("the ID token was refused")
	}
	if !hmac.Equal([]byte(idt.Nonce), []byte(nonce)) {
		slog.InfoContext(ctx, "OpenID Connect ID token refused: nonce does not match")
		return Identity{}, fault.Unauthorized("the ID token was refused")
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("read ID token claims: %w", err)
	}
	s.mergeUserInfo(ctx, c, p, tok, idt.Subject, claims)
	return identityOf(c, idt.Subject, claims), nil
}

// mergeUserInfo adds the claims the ID token lacks (login, e-mail, groups)
// from the UserInfo endpoint: providers that issue an access token may put
// the profile and email claims only there (OpenID Connect Core 5.4). The
// answer counts only for the same subject.
func (s *Service) mergeUserInfo(ctx context.Context, c Config, p *provider, tok *oauth2.Token, sub string, claims map[string]any) {
	_, hasLogin := claims[c.loginClaim()]
	_, hasEmail := claims["email"]
	_, hasGroups := claims[c.groupsClaim()]
	if (hasLogin && hasEmail && hasGroups) || p.p.UserInfoEndpoint() == "" {
		return
	}
	ui, err := p.p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		slog.InfoContext(ctx, "OpenID Connect UserInfo unavailable", "err", err)
		return
	}
	if ui.Subject != sub {
		slog.WarnContext(ctx, "OpenID Connect UserInfo names another subject: ignored")
		return
	}
	more := map[string]any{}
	if ui.Claims(&more) != nil {
		return
	}
	for k, v := range more {
		if _, ok := claims[k]; !ok {
			claims[k] = v
		}
	}
}

// identityOf reads the configured claims.
func identityOf(c Config, sub string, claims map[string]any) Identity {
	str := func(k string) string { v, _ := claims[k].(string); return strings.TrimSpace(v) }
	id := Identity{Subject: sub, Login: str(c.loginClaim()), Email: str("email"), Name: str("name")}
	switch v := claims["email_verified"].(type) {
	case bool:
		id.EmailVerified = v
	case string:
		id.EmailVerified = v == "true"
	}
	switch g := claims[c.groupsClaim()].(type) {
	case []any:
		for _, x := range g {
			if s, ok := x.(string); ok && strings.TrimSpace(s) != "" {
				id.Groups = append(id.Groups, strings.TrimSpace(s))
			}
		}
	case string:
		if strings.TrimSpace(g) != "" {
			id.Groups = []string{strings.TrimSpace(g)}
		}
	}
	return id
}
