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
