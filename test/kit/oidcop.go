package kit

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// OIDCIdentity is the person the test OpenID Provider signs in, and how the
// ID token it then issues is shaped.
type OIDCIdentity struct {
	Subject       string
	Login         string // preferred_username; omitted when empty
	Email         string // omitted when empty
	EmailVerified bool
	Name          string
	// Groups is the groups claim; nil omits the claim.
	Groups []string
	// Expired issues an ID token whose exp lies in the past.
	Expired bool
	// Nonce, when set, replaces the nonce of the authorization request.
	Nonce string
	// ForeignKey signs the ID token with a key the JWKS does not publish
	// (under the published key id).
	ForeignKey bool
}

// OIDCProvider is a minimal OpenID Provider on loopback (authorization code
// flow with PKCE S256, RS256 ID tokens, OpenID Connect Discovery and JWKS):
// the authorization endpoint approves at once the configured identity. Each
// code is good for one exchange by the client that asked for it.
type OIDCProvider struct {
	// Issuer is the provider's issuer URL (http://127.0.0.1:port, no trailing slash).
	Issuer       string
	ClientID     string
	ClientSecret string
	srv          *httptest.Server
	key, foreign *rsa.PrivateKey
	kid          string

	mu     sync.Mutex
	who    OIDCIdentity
	grants map[string]oidcGrant
}

// oidcGrant is what an authorization code stands for.
type oidcGrant struct {
	clientID, redirect, nonce, challenge string
	who                                  OIDCIdentity
	expires                              time.Time
}

// StartOIDCProvider starts a provider for client clientID (confidential,
// secret secret) that signs in who until SetIdentity changes it.
func StartOIDCProvider(t testing.TB, clientID, secret string, who OIDCIdentity) *OIDCProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &OIDCProvider{ClientID: clientID, ClientSecret: secret, key: key, foreign: foreign,
		kid: "kit-" + oidcRandom(6), who: who, grants: map[string]oidcGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux) // listens on 127.0.0.1
	p.Issuer = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

// SetIdentity changes whom the next authorization signs in.
func (p *OIDCProvider) SetIdentity(who OIDCIdentity) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.who = who
}

func (p *OIDCProvider) discovery(w http.ResponseWriter, _ *http.Request) {
	oidcJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.Issuer,
		"authorization_endpoint":                p.Issuer + "/authorize",
		"token_endpoint":                        p.Issuer + "/token",
		"jwks_uri":                              p.Issuer + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{"openid", "profile", "email", "groups"},
	})
}

func (p *OIDCProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: p.kid, Algorithm: string(jose.RS256), Use: "sig"}}}
	oidcJSON(w, http.StatusOK, set)
}

// authorize approves the configured identity: it requires response_type
// code, the registered client, an openid scope, a state and a PKCE S256
// challenge, and answers the redirect URI with code and state.
func (p *OIDCProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || !redirect.IsAbs() || q.Get("client_id") != p.ClientID {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	switch {
	case q.Get("response_type") != "code":
		back.Set("error", "unsupported_response_type")
	case !slices.Contains(strings.Fields(q.Get("scope")), "openid"):
		back.Set("error", "invalid_scope")
	case q.Get("state") == "" || q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		back.Set("error", "invalid_request")
	default:
		code := oidcRandom(24)
		p.mu.Lock()
		p.grants[code] = oidcGrant{clientID: p.ClientID, redirect: redirect.String(), nonce: q.Get("nonce"),
			challenge: q.Get("code_challenge"), who: p.who, expires: time.Now().Add(time.Minute)}
		p.mu.Unlock()
		back.Set("code", code)
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// token exchanges a code: the client authenticates (Basic or form), the
// code is unused, unexpired and was issued to it for the same redirect URI,
// and the code_verifier hashes (S256) to the code's challenge.
func (p *OIDCProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "authorization_code" {
		oidcJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if !p.clientAuthenticated(r) {
		oidcJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	p.mu.Lock()
	g, ok := p.grants[r.PostForm.Get("code")]
	delete(p.grants, r.PostForm.Get("code"))
	p.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || time.Now().After(g.expires) || g.clientID != p.ClientID || g.redirect != r.PostForm.Get("redirect_uri") ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		oidcJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	idToken, err := p.idToken(g)
	if err != nil {
		oidcJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error", "error_description": err.Error()})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	oidcJSON(w, http.StatusOK, map[string]any{"access_token": oidcRandom(24), "token_type": "Bearer",
		"expires_in": 300, "id_token": idToken})
}

func (p *OIDCProvider) clientAuthenticated(r *http.Request) bool {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 2.3.1: Basic credentials are form-encoded first
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	return id == p.ClientID && subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) == 1
}

// idToken signs the ID token of a grant (RS256, typ JWT).
func (p *OIDCProvider) idToken(g oidcGrant) (string, error) {
	now := time.Now()
	claims := map[string]any{"iss": p.Issuer, "sub": g.who.Subject, "aud": p.ClientID,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": g.nonce}
	if g.who.Expired {
		claims["iat"], claims["exp"] = now.Add(-time.Hour).Unix(), now.Add(-10*time.Minute).Unix()
	}
	if g.who.Nonce != "" {
		claims["nonce"] = g.who.Nonce
	}
	for k, v := range map[string]string{"preferred_username": g.who.Login, "email": g.who.Email, "name": g.who.Name} {
		if v != "" {
			claims[k] = v
		}
	}
	if g.who.Email != "" {
		claims["email_verified"] = g.who.EmailVerified
	}
	if g.who.Groups != nil {
		claims["groups"] = g.who.Groups
	}
	key := p.key
	if g.who.ForeignKey {
		key = p.foreign
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: p.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("ID token signer: %w", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("ID token claims: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign ID token: %w", err)
	}
	return jws.CompactSerialize()
}

func oidcJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oidcRandom(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
