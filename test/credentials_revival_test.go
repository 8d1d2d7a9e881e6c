package test

import (
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestServiceTokenRevival: a service account's tokens die for good when it
// is deactivated (also after a reactivation); a token answer is never
// replayed from the idempotency cache; a service account takes no password.
func TestServiceTokenRevival(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		acc := admin.Do(t, "POST", "/admin/service-accounts", map[string]any{"login": "rev-bot"}).Expect(t, 201).Map(t)
		id := acc["id"].(string)
		tokens := "/admin/service-accounts/" + id + "/tokens"
		body := map[string]any{"name": "keyed", "scope": "read"}
		first := postKeyed(t, admin, tokens, "tok-key-1", body).Expect(t, 201)
		tok := first.Map(t)["token"].(string)
		again := postKeyed(t, admin, tokens, "tok-key-1", body).Expect(t, 409, "CONFLICT")
		if strings.Contains(string(again.Raw), tok) {
			t.Fatal("the token was replayed from the idempotency cache")
		}
		as := &kit.Client{S: s, Token: tok, HTTP: http.DefaultClient}
		as.Do(t, "GET", "/auth/me", nil).Expect(t, 200)

		admin.Do(t, "POST", "/admin/users/"+id+"/reset-password", map[string]any{"password": "Bot-password-9137x"}).Expect(t, 400, "VALIDATION_ERROR")

		admin.Do(t, "PATCH", "/admin/users/"+id, map[string]any{"isActive": false}).Expect(t, 200)
		as.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
		admin.Do(t, "PATCH", "/admin/users/"+id, map[string]any{"isActive": true}).Expect(t, 200)
		as.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
		fresh := admin.Do(t, "POST", tokens, map[string]any{"name": "new", "scope": "read"}).Expect(t, 201).Map(t)["token"].(string)
		(&kit.Client{S: s, Token: fresh, HTTP: http.DefaultClient}).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
	})
}

// TestAppPasswordRevival: an admin password reset ends the user's app
// passwords for good; an app password answer is never replayed.
func TestAppPasswordRevival(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		user, uid := s.CreateUser(t, "apprev", false)
		body := map[string]any{"name": "phone", "scope": "read-only"}
		pw := postKeyed(t, user, "/auth/app-passwords", "ap-key-1", body).Expect(t, 201).Map(t)["password"].(string)
		if again := postKeyed(t, user, "/auth/app-passwords", "ap-key-1", body).Expect(t, 409, "CONFLICT"); strings.Contains(string(again.Raw), pw) {
			t.Fatal("the app password was replayed from the idempotency cache")
		}
		as := &kit.Client{S: s, Token: pw, HTTP: http.DefaultClient}
		as.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		admin.Do(t, "POST", "/admin/users/"+uid+"/reset-password", map[string]any{"password": "Another-pass-9137"}).Expect(t, 200)
		as.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
	})
}
