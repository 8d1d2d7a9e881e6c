package mail

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/config"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/mail/mailtest"
	"coreportal/internal/services"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func strp(s string) *string { return &s }

func TestAddressAndMessageRules(t *testing.T) {
	for _, tc := range []struct {
		m     Message
		field string
	}{
		{Message{To: []string{"a@example.com"}, Text: "x"}, ""},
		{Message{To: []string{"a@example.com"}, HTML: "<b>x</b>"}, ""},
		{Message{To: nil, Text: "x"}, "to"},
		{Message{To: []string{"not-an-address"}, Text: "x"}, "to"},
		{Message{To: []string{"Bob <b@example.com>"}, Text: "x"}, "to"},
		{Message{To: []string{"a@example.com"}, Cc: []string{"x@"}, Text: "x"}, "cc"},
		{Message{To: []string{"a@example.com"}, Bcc: []string{"nodomain"}, Text: "x"}, "bcc"},
		{Message{To: []string{"a@example.com"}, ReplyTo: "bad", Text: "x"}, "replyTo"},
		{Message{To: []string{"a@example.com"}}, "text"},
	} {
		err := tc.m.Validate()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.m, err)
			}
			continue
		}
		fe, ok := fault.As(err)
		if !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != tc.field {
			t.Errorf("%+v: %v, want validation of %s", tc.m, err, tc.field)
		}
	}
}

func setup(t *testing.T, db *store.DB, env config.Config) (*Service, *services.Service, *jobs.Queue) {
	q := jobs.New(db)
	q.Poll = 20 * time.Millisecond
	svc := services.New(db, q)
	return New(svc, q, env), svc, q
}

func TestSettingsStatusAndSend(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		smtp := mailtest.StartT(t, mailtest.Options{User: "mailer", Password: "s3cret", STARTTLS: true})
		m, svc, q := setup(t, db, config.Config{SMTPHost: "env.example.com", SMTPPort: 2525, SMTPFrom: "Env <env@example.com>"})
		m.TLS = &tls.Config{RootCAs: smtp.Pool}
		m.Timeout = 5 * time.Second

		// nothing stored: the SMTP_* fallback applies
		v, _ := m.Settings(ctx)
		if v.Source != "environment" || v.Host != "env.example.com" || v.FromEmail != "env@example.com" || v.FromName != "Env" {
			t.Fatalf("fallback: %+v", v)
		}
		in := SMTPSettingsInput{Host: smtp.Host, Port: smtp.Port, User: "mailer", Password: strp("s3cret"), FromEmail: "portal@example.com", FromName: "Portal"}
		if v, err := m.SaveSettings(ctx, in); err != nil || !v.HasPassword || v.Source != "settings" {
			t.Fatalf("save: %+v %v", v, err)
		}
		in.Password = strp(Mask)
		if _, err := m.SaveSettings(ctx, in); err != nil {
			t.Fatal(err)
		}
		in.Password = nil
		if v, _ = m.SaveSettings(ctx, in); !v.HasPassword {
			t.Fatal("omitted password was cleared")
		}
		if _, err := m.SaveSettings(ctx, SMTPSettingsInput{Host: "h", FromEmail: "bad"}); !fault.Is(err, fault.CodeValidation) {
			t.Fatalf("bad fromEmail: %v", err)
		}
		st, err := m.CheckStatus(ctx)
		if err != nil || !st.Connected {
			t.Fatalf("status: %+v %v", st, err)
		}
		// the test mail goes out through STARTTLS with authentication
		if err := m.SendTest(ctx, "admin@example.com"); err != nil {
			t.Fatal(err)
		}
		got := smtp.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message"))
		if !got.TLS || got.Auth != "mailer" || got.To[0] != "admin@example.com" {
			t.Fatalf("test mail: %+v", got)
		}
		// wrong password: the status says so
		in.Password = strp("wrong")
		_, _ = m.SaveSettings(ctx, in)
		if st, _ = m.CheckStatus(ctx); st.Connected || st.Error == "" {
			t.Fatalf("status with a wrong password: %+v", st)
		}
		in.Password = strp("s3cret")
		_, _ = m.SaveSettings(ctx, in)

		admin := auth.WithPrincipal(ctx, &auth.Principal{UserID: "00000000-0000-0000-0000-000000000001", IsAdmin: true})
		user := auth.WithPrincipal(ctx, &auth.Principal{UserID: "00000000-0000-0000-0000-000000000002"})
		msg := Message{To: []string{"x@example.com"}, Subject: "Hello", Text: "queued body"}
		if _, err := m.Send(user, msg, true); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("user without allowAuthenticatedSend: %v", err)
		}
		res, err := m.Send(admin, msg, true)
		if err != nil || !res.Async || res.Status != "pending" || res.JobID == "" {
			t.Fatalf("async send: %+v %v", res, err)
		}
		if ran, err := q.RunOnce(ctx); !ran || err != nil {
			t.Fatal("job not run", err)
		}
		if j, _ := q.Get(ctx, res.JobID); j.Status != jobs.StatusSucceeded {
			t.Fatalf("mail job: %+v", j)
		}
		smtp.Wait(t, 5*time.Second, mailtest.Contains("queued body"))
		in.AllowAuthenticatedSend = true
		_, _ = m.SaveSettings(ctx, in)
		if _, err := m.Send(user, msg, true); err != nil {
			t.Fatalf("user with allowAuthenticatedSend: %v", err)
		}
		if _, err := m.Send(user, msg, false); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("sync send by a user: %v", err)
		}
		if res, err := m.Send(admin, Message{To: []string{"y@example.com"}, Subject: "Now", HTML: "<p>sync body</p>"}, false); err != nil || res.Status != "sent" {
			t.Fatalf("sync: %+v %v", res, err)
		}
		smtp.Wait(t, 5*time.Second, mailtest.Contains("sync body"))
		// disabled notifications: send refused, test mail still works
		no := false
		if _, err := svc.Update(ctx, services.KeyNotifications, services.Patch{IsEnabled: &no}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Send(admin, msg, true); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("send while disabled: %v", err)
		}
		if err := m.SendTest(ctx, "again@example.com"); err != nil {
			t.Fatalf("test mail while disabled: %v", err)
		}
		smtp.Wait(t, 5*time.Second, func(m mailtest.Message) bool { return strings.Contains(strings.Join(m.To, ","), "again@") })
	})
}

// secure=true speaks TLS from the first byte (SMTPS) and authenticates inside it.
func TestImplicitTLS(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	smtp := mailtest.StartT(t, mailtest.Options{User: "u", Password: "p", ImplicitTLS: true})
	m, _, _ := setup(t, db, config.Config{})
	m.Timeout = 5 * time.Second
	if _, err := m.SaveSettings(ctx, SMTPSettingsInput{Host: smtp.Host, Port: smtp.Port, Secure: true, User: "u", Password: strp("p"), FromEmail: "portal@example.com"}); err != nil {
		t.Fatal(err)
	}
	// an untrusted certificate is refused
	if st, _ := m.CheckStatus(ctx); st.Connected {
		t.Fatal("connected to a server with an untrusted certificate")
	}
	m.TLS = &tls.Config{RootCAs: smtp.Pool}
	if st, _ := m.CheckStatus(ctx); !st.Connected {
		t.Fatalf("status: %+v", st)
	}
	if err := m.SendTest(ctx, "tls@example.com"); err != nil {
		t.Fatal(err)
	}
	if got := smtp.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message")); got.Auth != "u" {
		t.Fatalf("mail: %+v", got)
	}
	// a plain server is not reachable with secure=true
	plain := mailtest.StartT(t, mailtest.Options{})
	if _, err := m.SaveSettings(ctx, SMTPSettingsInput{Host: plain.Host, Port: plain.Port, Secure: true, Password: strp(""), FromEmail: "portal@example.com"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.CheckStatus(ctx); st.Connected {
		t.Fatal("secure=true accepted a server without TLS")
	}
}

// The stored password is kept only for the same host, port and user.
func TestApplyKeepsPasswordOnlyForSameServer(t *testing.T) {
	old := Settings{Host: "smtp.example.com", Port: 587, User: "mailer", Password: "s3cret", FromEmail: "p@example.com"}
	for _, tc := range []struct {
		name string
		in   SMTPSettingsInput
		want string // stored password after, "!" for a 400 on password
	}{
		{"same, omitted", SMTPSettingsInput{Host: "smtp.example.com", Port: 587, User: "mailer"}, "s3cret"},
		{"same, masked, host case and default port", SMTPSettingsInput{Host: "SMTP.example.com", User: "mailer", Password: strp(Mask)}, "s3cret"},
		{"new host, omitted", SMTPSettingsInput{Host: "evil.example.com", Port: 587, User: "mailer"}, "!"},
		{"new port, masked", SMTPSettingsInput{Host: "smtp.example.com", Port: 2525, User: "mailer", Password: strp(Mask)}, "!"},
		{"new user, omitted", SMTPSettingsInput{Host: "smtp.example.com", Port: 587, User: "other"}, "!"},
		{"secure default port 465, omitted", SMTPSettingsInput{Host: "smtp.example.com", Secure: true, User: "mailer"}, "!"},
		{"host cleared, omitted", SMTPSettingsInput{User: "mailer"}, "!"},
		{"new host, new password", SMTPSettingsInput{Host: "other.example.com", User: "mailer", Password: strp("new")}, "new"},
		{"new host, cleared", SMTPSettingsInput{Host: "other.example.com", User: "mailer", Password: strp("")}, ""},
	} {
		tc.in.FromEmail = "p@example.com"
		got, err := tc.in.apply(old)
		if tc.want == "!" {
			if fe, ok := fault.As(err); !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != "password" {
				t.Errorf("%s: %v, want a validation error on password", tc.name, err)
			}
			continue
		}
		if err != nil || got.Password != tc.want {
			t.Errorf("%s: password %q %v, want %q", tc.name, got.Password, err, tc.want)
		}
	}
	// nothing stored: no password to protect
	if _, err := (SMTPSettingsInput{Host: "any.example.com", FromEmail: "p@example.com"}).apply(Settings{Host: "old.example.com"}); err != nil {
		t.Fatal(err)
	}
}
