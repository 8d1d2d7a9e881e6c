package test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// oidcProvider is a real OpenID Provider (zitadel/oidc's example OP, built
// from its Go module by scripts/oidc-provider) on loopback: client "web"
// (secret "secret"), users test-user@localhost and test-user2 (password
// verysecure). Each start signs with a new RSA key (a key rotation).
type oidcProvider struct {
	bin, port, redirect string
	cmd                 *exec.Cmd
}

func buildOIDCProvider(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join("..", "scripts", "oidc-provider")).Output()
	if err != nil {
		t.Fatalf("scripts/oidc-provider: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func (p *oidcProvider) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(p.bin)
	cmd.Env = append(os.Environ(), "PORT="+p.port, "REDIRECT_URI="+p.redirect)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.cmd = cmd
	t.Cleanup(p.stop)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get(p.issuer() + ".well-known/openid-configuration"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("OpenID provider not ready")
}

func (p *oidcProvider) stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		p.cmd = nil
	}
}

func (p *oidcProvider) issuer() string { return "http://localhost:" + p.port + "/" }

// signIn runs the redirect flow in a browser-like client (cookie jar):
// start at the portal, post the provider's login form, follow the redirects
// back. It returns the client and the last answer.
func signIn(t *testing.T, s *kit.Server, jar http.CookieJar, user string) (*http.Client, *http.Response) {
	t.Helper()
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	r, err := c.Get(s.URL + "/api/v1/auth/oidc/start?returnTo=/pages")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	id := r.Request.URL.Query().Get("authRequestID")
	if r.StatusCode != 200 || id == "" {
		t.Fatalf("login page: %d %s", r.StatusCode, r.Request.URL)
	}
	login := *r.Request.URL
	login.RawQuery = ""
	r, err = c.PostForm(login.String(), url.Values{"id": {id}, "username": {user}, "password": {"verysecure"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	return c, r
}

func portalToken(t *testing.T, s *kit.Server, jar http.CookieJar) string {
	u, _ := url.Parse(s.URL + "/api/v1/")
	for _, c := range jar.Cookies(u) {
		if c.Name == "core_token" {
			return c.Value
		}
	}
	return ""
}

func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	bin := buildOIDCProvider(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		p := &oidcProvider{bin: bin, port: strings.TrimPrefix(kit.FreePort(t), "127.0.0.1:"), redirect: s.URL + "/api/v1/auth/oidc/callback"}
		p.start(t)

		// not configured: no button, start answers 404
		if m := s.Anon().Do(t, "GET", "/auth/methods", nil).Expect(t, 200).Map(t); m["oidc"] != nil {
			t.Fatalf("methods %v", m)
		}
		s.Anon().Do(t, "GET", "/auth/oidc/start", nil).Expect(t, 404, "NOT_FOUND")

		cfg := map[string]any{"issuer": p.issuer(), "clientId": "web", "clientSecret": "secret",
			"scopes": []string{"openid", "profile", "email"}, "buttonLabel": "Company sign-in"}
		admin.Do(t, "PUT", "/admin/settings/oidc", map[string]any{"issuer": "ftp://x", "clientId": "web"}).Expect(t, 400, "VALIDATION_ERROR")
		got := admin.Do(t, "PUT", "/admin/settings/oidc", cfg).Expect(t, 200).Map(t)
		if got["hasClientSecret"] != true || got["clientSecret"] != nil || got["configured"] != true {
			t.Fatalf("settings %v", got)
		}
		if raw := string(admin.Do(t, "GET", "/services", nil).Expect(t, 200).Raw); strings.Contains(raw, `"secret"`) {
			t.Fatalf("the secret leaks: %s", raw)
		}
		// the stored secret is kept with the mask
		cfg["clientSecret"] = "********"
		admin.Do(t, "PUT", "/admin/settings/oidc", cfg).Expect(t, 200)
		m := s.Anon().Do(t, "GET", "/auth/methods", nil).Expect(t, 200).Map(t)
		if o, _ := m["oidc"].(map[string]any); o == nil || o["label"] != "Company sign-in" || o["startUrl"] != "/api/v1/auth/oidc/start" {
			t.Fatalf("methods %v", m)
		}

		// a new user is created as a domain user; the session is a real one
		jar, _ := cookiejar.New(nil)
		_, r := signIn(t, s, jar, "test-user@localhost")
		if r.StatusCode != 200 || r.Request.URL.Path != "/pages" {
			t.Fatalf("after sign-in: %d %s", r.StatusCode, r.Request.URL)
		}
		tok := portalToken(t, s, jar)
		if tok == "" {
			t.Fatal("no core_token cookie after sign-in")
		}
		me := (&kit.Client{S: s, HTTP: http.DefaultClient, Token: tok}).Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
		if me["login"] != "test-user@localhost" {
			t.Fatalf("me %v", me)
		}

		// an existing account is matched by login
		_, bobID := s.CreateUser(t, "test-user2", false)
		jar2, _ := cookiejar.New(nil)
		signIn(t, s, jar2, "test-user2")
		me = (&kit.Client{S: s, HTTP: http.DefaultClient, Token: portalToken(t, s, jar2)}).Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
		if me["id"] != bobID {
			t.Fatalf("matched %v, want %s", me, bobID)
		}

		// wrong state, or no flow cookie: refused, no session
		jar3, _ := cookiejar.New(nil)
		c3 := &http.Client{Jar: jar3, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		r, err := c3.Get(s.URL + "/api/v1/auth/oidc/start")
		if err != nil || r.StatusCode != 302 || !strings.HasPrefix(r.Header.Get("Location"), p.issuer()) {
			t.Fatalf("start: %v %v", err, r)
		}
		r.Body.Close()
		s.Anon().Do(t, "GET", "/auth/oidc/callback?code=abc&state=wrong", nil).Expect(t, 401, "UNAUTHORIZED")
		r, _ = c3.Get(s.URL + "/api/v1/auth/oidc/callback?code=abc&state=wrong")
		r.Body.Close()
		if r.StatusCode != 401 || portalToken(t, s, jar3) != "" {
			t.Fatalf("wrong state: %d", r.StatusCode)
		}

		// the provider restarts with a new signing key: sign-in goes on
		p.stop()
		p.start(t)
		jar4, _ := cookiejar.New(nil)
		signIn(t, s, jar4, "test-user@localhost")
		if portalToken(t, s, jar4) == "" {
			t.Fatalf("no session after the provider's key rotation:\n%s", s.Logs())
		}
	})
}

// TestOIDCClaims signs in against the test kit's OpenID Provider, whose ID
// token each case shapes: the groups claim joins the domain_linked groups of
// the same name (any case) and nothing else; an ID token with a wrong nonce,
// a past exp or a signature by a key not in the provider's JWKS is refused
// with 401 UNAUTHORIZED, no session and no user.
func TestOIDCClaims(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		op := kit.StartOIDCProvider(t, "portal", "portal-secret", kit.OIDCIdentity{})
		admin.Do(t, "PUT", "/admin/settings/oidc", map[string]any{"issuer": op.Issuer, "clientId": op.ClientID,
			"clientSecret": op.ClientSecret, "scopes": []string{"openid", "profile", "email", "groups"}}).Expect(t, 200)

		t.Run("groups claim joins domain_linked groups only", func(t *testing.T) {
			checkOIDCGroups(t, s, admin, op)
		})
		for _, c := range []struct {
			name, message string
			shape         func(*kit.OIDCIdentity)
		}{
			{"wrong nonce", "the ID token was refused", func(w *kit.OIDCIdentity) { w.Nonce = "not-the-nonce-of-the-request" }},
			{"expired ID token", "the ID token has expired", func(w *kit.OIDCIdentity) { w.Expired = true }},
			{"ID token signed by a key not in the JWKS", "the ID token was refused", func(w *kit.OIDCIdentity) { w.ForeignKey = true }},
		} {
			t.Run(c.name, func(t *testing.T) {
				login := "refused-" + strings.ReplaceAll(c.name, " ", "-")
				who := kit.OIDCIdentity{Subject: "sub-" + login, Login: login, Email: login + "@example.com", EmailVerified: true}
				c.shape(&who)
				checkOIDCRefused(t, s, admin, op, who, c.message)
				// the same identity with a sound ID token signs in: the refusal was the shaped claim's
				op.SetIdentity(kit.OIDCIdentity{Subject: who.Subject, Login: login, Email: who.Email, EmailVerified: true})
				if r, tok := oidcCallback(t, s); r.Status != 302 || tok == "" {
					t.Fatalf("sound ID token after the refusal: %d %s\n%s", r.Status, r.Raw, s.Logs())
				}
			})
		}
	})
}

// oidcCallback runs the redirect flow in a browser-like client (cookie jar)
// up to the provider's redirect back, then sends the callback request (with
// the browser's cookies) without following its redirect: the callback's
// answer, and its session cookie ("" when none).
func oidcCallback(t *testing.T, s *kit.Server) (*kit.Response, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	stop := func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == "/api/v1/auth/oidc/callback" {
			return http.ErrUseLastResponse
		}
		return nil
	}
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: stop}
	r, err := c.Get(s.URL + "/api/v1/auth/oidc/start?returnTo=/pages")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	back, err := r.Location()
	if r.StatusCode != 302 || err != nil || back.Path != "/api/v1/auth/oidc/callback" {
		t.Fatalf("the provider did not redirect to the callback: %d %v %v", r.StatusCode, back, err)
	}
	req, err := http.NewRequest("GET", back.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range jar.Cookies(back) {
		req.AddCookie(ck)
	}
	noFollow := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	got := (&kit.Client{S: s, HTTP: noFollow}).Send(t, req)
	for _, ck := range (&http.Response{Header: got.Header}).Cookies() {
		if ck.Name == "core_token" && ck.Value != "" && ck.MaxAge >= 0 {
			return got, ck.Value
		}
	}
	return got, ""
}

// checkOIDCGroups: groups ["Sales Team", "Unknown"] make the user a member
// of the domain_linked group "sales team" only; the portal group "Sales
// Team" and the unclaimed domain_linked group stay without members.
func checkOIDCGroups(t *testing.T, s *kit.Server, admin *kit.Client, op *kit.OIDCProvider) {
	t.Helper()
	sales := insertDomainGroup(t, s, "sales team")
	insertDomainGroup(t, s, "Marketing")
	portal := admin.Do(t, "POST", "/groups", map[string]any{"name": "Sales Team"}).Expect(t, 201).Map(t)["id"].(string)
	op.SetIdentity(kit.OIDCIdentity{Subject: "sub-carol", Login: "carol", Email: "carol@example.com", EmailVerified: true,
		Name: "Carol Sales", Groups: []string{"Sales Team", "Unknown"}})
	r, tok := oidcCallback(t, s)
	if r.Status != 302 || r.Header.Get("Location") != "/pages" || tok == "" {
		t.Fatalf("sign-in: %d %v %s\n%s", r.Status, r.Header, r.Raw, s.Logs())
	}
	me := (&kit.Client{S: s, HTTP: http.DefaultClient, Token: tok}).Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
	if me["login"] != "carol" {
		t.Fatalf("me %v", me)
	}
	var rows []map[string]any
	admin.Do(t, "GET", "/groups", nil).Expect(t, 200).Into(t, &rows)
	var in []string
	for _, g := range rows {
		full := admin.Do(t, "GET", "/groups/"+g["id"].(string), nil).Expect(t, 200).Map(t)
		if g["id"] == portal && len(memberLogins(full)) != 0 {
			t.Fatalf("the portal group of the same name was touched: %v", full["members"])
		}
		if memberLogins(full)["carol"] {
			in = append(in, g["id"].(string))
		}
	}
	if len(in) != 1 || in[0] != sales {
		t.Fatalf("carol is in %v, want only the domain_linked group %s", in, sales)
	}
}

// checkOIDCRefused: the callback of a sign-in as who answers 401
// UNAUTHORIZED with message, sets no session cookie and creates no user.
func checkOIDCRefused(t *testing.T, s *kit.Server, admin *kit.Client, op *kit.OIDCProvider, who kit.OIDCIdentity, message string) {
	t.Helper()
	op.SetIdentity(who)
	r, tok := oidcCallback(t, s)
	r.Expect(t, 401, "UNAUTHORIZED")
	if r.Error.Message != message {
		t.Fatalf("message %q, want %q\n%s", r.Error.Message, message, s.Logs())
	}
	if tok != "" || strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), "core_token") {
		t.Fatalf("a refused callback sets a session cookie: %v", r.Header.Values("Set-Cookie"))
	}
	if u := userByLogin(t, admin, who.Login); u != nil {
		t.Fatalf("a refused sign-in created user %v", u)
	}
}
