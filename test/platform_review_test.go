package test

import (
	"testing"
	"time"

	"coreportal/internal/mail/mailtest"
	"coreportal/test/kit"
)

// The stored SMTP password is never handed to a server or user it was not
// entered for: changing host, port or user needs the password again (or an
// explicit empty one), so an admin session cannot redirect the secret.
func TestPlatformSMTPPasswordNotSentToNewServer(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		good := mailtest.StartT(t, mailtest.Options{User: "mailer", Password: "old-secret"})
		evil := mailtest.StartT(t, mailtest.Options{User: "mailer", Password: "anything"})
		admin := s.Admin(t)
		base := map[string]any{"host": good.Host, "port": good.Port, "user": "mailer", "password": "old-secret", "fromEmail": "portal@example.com"}
		admin.Do(t, "PUT", "/admin/settings/smtp", base).Expect(t, 200)
		with := func(kv ...any) map[string]any {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			delete(m, "password")
			for i := 0; i < len(kv); i += 2 {
				if kv[i+1] == nil {
					delete(m, kv[i].(string))
				} else {
					m[kv[i].(string)] = kv[i+1]
				}
			}
			return m
		}
		for name, body := range map[string]map[string]any{
			"port, password omitted":     with("port", evil.Port),
			"port, password masked":      with("port", evil.Port, "password", "********"),
			"host, password omitted":     with("host", "localhost", "port", evil.Port),
			"user, password omitted":     with("user", "someone-else"),
			"user removed, still stored": with("user", nil),
		} {
			r := admin.Do(t, "PUT", "/admin/settings/smtp", body).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "password" {
				t.Errorf("%s: %s", name, r.Raw)
			}
		}
		// nothing changed: the status still talks to the original server
		if st := admin.Do(t, "GET", "/admin/settings/smtp-status", nil).Expect(t, 200).Map(t); st["connected"] != true || st["port"] != float64(good.Port) {
			t.Fatalf("status: %v", st)
		}
		// same server and user: the password is kept by omission and by the mask
		admin.Do(t, "PUT", "/admin/settings/smtp", with("fromName", "Portal")).Expect(t, 200)
		admin.Do(t, "PUT", "/admin/settings/smtp", with("password", "********", "host", "127.0.0.1")).Expect(t, 200)
		// an explicit empty password clears it: the new server gets no AUTH at all
		v := admin.Do(t, "PUT", "/admin/settings/smtp", with("port", evil.Port, "password", "")).Expect(t, 200).Map(t)
		if v["hasPassword"] != false {
			t.Fatalf("cleared: %v", v)
		}
		admin.Do(t, "GET", "/admin/settings/smtp-status", nil).Expect(t, 200)
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"})
		// a new password for the new server is used there
		admin.Do(t, "PUT", "/admin/settings/smtp", with("port", evil.Port, "password", "anything")).Expect(t, 200)
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"}).Expect(t, 200)
		evil.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message"))
		for _, a := range evil.AuthAttempts() {
			if a.Password == "old-secret" {
				t.Fatalf("the old password was sent to the new server: %+v", evil.AuthAttempts())
			}
		}
		if len(good.AuthAttempts()) == 0 {
			t.Fatal("the original server never saw the password (the check above proves nothing)")
		}
	})
}
