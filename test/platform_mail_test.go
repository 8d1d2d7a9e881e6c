package test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"coreportal/internal/mail/mailtest"
	"coreportal/test/kit"
)

func TestPlatformSMTPSettingsAndMailSend(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		smtp := mailtest.StartT(t, mailtest.Options{User: "mailer", Password: "smtp-pass"})
		admin := s.Admin(t)
		user, _ := s.CreateUser(t, "max", false)
		send := map[string]any{"to": "someone@example.com", "subject": "Hi", "text": "hello"}

		// before configuration
		v := admin.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t)
		if v["configured"] != false || v["source"] != "none" {
			t.Fatalf("unconfigured: %v", v)
		}
		admin.Do(t, "POST", "/mail/send", send).Expect(t, 409, "CONFLICT")
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "a@example.com"}).Expect(t, 409, "CONFLICT")
		if st := admin.Do(t, "GET", "/admin/settings/smtp-status", nil).Expect(t, 200).Map(t); st["configured"] != false || st["connected"] != false {
			t.Fatalf("status: %v", st)
		}
		user.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": "x"}).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "a@example.com"}).Expect(t, 403, "FORBIDDEN")
		s.Anon().Do(t, "POST", "/mail/send", send).Expect(t, 401, "UNAUTHORIZED")

		// settings: the password is write-only and kept by omission or the mask
		r := admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port, "user": "mailer",
			"password": "smtp-pass", "fromEmail": "portal@example.com", "fromName": "Core Portal", "replyTo": "help@example.com"}).Expect(t, 200)
		if strings.Contains(string(r.Raw), "smtp-pass") || r.Map(t)["hasPassword"] != true || r.Map(t)["source"] != "settings" {
			t.Fatalf("put: %s", r.Raw)
		}
		admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port, "user": "mailer",
			"password": "********", "fromEmail": "portal@example.com"}).Expect(t, 200)
		v = admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port, "user": "mailer",
			"fromEmail": "portal@example.com", "fromName": "Core Portal"}).Expect(t, 200).Map(t)
		if v["hasPassword"] != true || v["password"] != nil {
			t.Fatalf("password not kept: %v", v)
		}
		for _, bad := range []map[string]any{
			{"host": smtp.Host, "fromEmail": "not-an-address"},
			{"host": smtp.Host},
			{"host": "smtp://x", "fromEmail": "a@example.com"},
			{"host": smtp.Host, "fromEmail": "a@example.com", "replyTo": "nope"},
			{"host": smtp.Host, "fromEmail": "a@example.com", "port": 70000},
			{"host": smtp.Host, "fromEmail": "a@example.com", "bogus": 1},
		} {
			admin.Do(t, "PUT", "/admin/settings/smtp", bad).Expect(t, 400, "VALIDATION_ERROR")
		}
		if st := admin.Do(t, "GET", "/admin/settings/smtp-status", nil).Expect(t, 200).Map(t); st["connected"] != true {
			t.Fatalf("status: %v", st)
		}

		// test mail, also while notifications is disabled
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "nope"}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "PATCH", "/services/notifications", map[string]any{"isEnabled": false}).Expect(t, 200)
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"}).Expect(t, 200)
		got := smtp.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message"))
		if got.Auth != "mailer" || got.To[0] != "ops@example.com" || !strings.Contains(got.Data, "portal@example.com") {
			t.Fatalf("test mail: %+v", got)
		}
		r = admin.Do(t, "POST", "/mail/send", send).Expect(t, 409, "CONFLICT")
		if r.Error.Details["reason"] != "service_disabled" {
			t.Fatalf("disabled: %s", r.Raw)
		}
		admin.Do(t, "PATCH", "/services/notifications", map[string]any{"isEnabled": true}).Expect(t, 200)

		// POST /mail/send
		for _, bad := range []map[string]any{
			{"to": "bad-address", "text": "x"},
			{"to": []string{"a@example.com", "oops"}, "text": "x"},
			{"to": "a@example.com", "cc": []string{"x"}, "text": "x"},
			{"to": "a@example.com", "subject": "no body"},
			{"to": 5, "text": "x"},
			{"text": "x"},
		} {
			admin.Do(t, "POST", "/mail/send", bad).Expect(t, 400, "VALIDATION_ERROR")
		}
		a := admin.Do(t, "POST", "/mail/send", map[string]any{"to": []string{"one@example.com", "two@example.com"}, "cc": []string{"cc@example.com"},
			"bcc": []string{"hidden@example.com"}, "subject": "Queued", "text": "plain body", "html": "<p>html body</p>"}).Expect(t, 202).Map(t)
		if a["async"] != true || a["status"] != "pending" || a["jobId"] == "" {
			t.Fatalf("async answer: %v", a)
		}
		j := waitJob(t, admin, a["jobId"].(string), "succeeded")
		if j["type"] != "notifications.sendEmail" {
			t.Fatalf("job: %v", j)
		}
		got = smtp.Wait(t, 5*time.Second, mailtest.Contains("Subject: Queued", "plain body", "html body"))
		if len(got.To) != 4 || strings.Contains(got.Data, "hidden@example.com") {
			t.Fatalf("recipients: %v (bcc must not show in the headers)", got.To)
		}
		// non-admins: only with allowAuthenticatedSend, and never synchronously
		user.Do(t, "POST", "/mail/send", send).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port, "user": "mailer",
			"fromEmail": "portal@example.com", "allowAuthenticatedSend": true}).Expect(t, 200)
		user.Do(t, "POST", "/mail/send", map[string]any{"to": "someone@example.com", "subject": "From max", "text": "user mail"}).Expect(t, 202)
		smtp.Wait(t, 10*time.Second, mailtest.Contains("user mail"))
		user.Do(t, "POST", "/mail/send", map[string]any{"to": "someone@example.com", "text": "x", "async": false}).Expect(t, 403, "FORBIDDEN")
		sync := admin.Do(t, "POST", "/mail/send", map[string]any{"to": "now@example.com", "subject": "Sync", "text": "sync body", "async": false}).Expect(t, 200).Map(t)
		if sync["async"] != false || sync["status"] != "sent" {
			t.Fatalf("sync: %v", sync)
		}
		smtp.Wait(t, time.Second, mailtest.Contains("sync body"))

		// a refused login shows in the status
		admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port, "user": "mailer",
			"password": "wrong", "fromEmail": "portal@example.com"}).Expect(t, 200)
		if st := admin.Do(t, "GET", "/admin/settings/smtp-status", nil).Expect(t, 200).Map(t); st["connected"] != false || st["error"] == "" {
			t.Fatalf("status with a wrong password: %v", st)
		}
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"}).Expect(t, 503, "UNAVAILABLE")
	})
}

// Without stored settings the SMTP_* variables apply.
func TestPlatformSMTPEnvironmentFallback(t *testing.T) {
	t.Parallel()
	smtp := mailtest.StartT(t, mailtest.Options{})
	for _, b := range kit.Backends(t)[:1] {
		s := kit.Start(t, b, "SMTP_HOST="+smtp.Host, "SMTP_PORT="+strconv.Itoa(smtp.Port), "SMTP_FROM=Env Sender <env@example.com>")
		admin := s.Admin(t)
		v := admin.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t)
		if v["source"] != "environment" || v["configured"] != true || v["fromEmail"] != "env@example.com" || v["port"] != float64(smtp.Port) {
			t.Fatalf("fallback: %v", v)
		}
		admin.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"}).Expect(t, 200)
		got := smtp.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message"))
		if !strings.Contains(got.Data, "env@example.com") {
			t.Fatalf("from: %s", got.Data)
		}
	}
}

// A serve process and a worker process on one database share the queue and
// never send a mail twice.
func TestPlatformTwoWorkerProcesses(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		smtp := mailtest.StartT(t, mailtest.Options{Delay: 250 * time.Millisecond})
		worker := kit.StartWith(t, s.DBURL, s.DataDir, "worker")
		admin := s.Admin(t)
		configureSMTP(t, admin, smtp, nil)
		const n = 64
		ids := make([]string, 0, n)
		for i := range n {
			r := admin.Do(t, "POST", "/mail/send", map[string]any{"to": "bulk@example.com", "subject": fmt.Sprintf("bulk-%03d", i), "text": "x"}).Expect(t, 202)
			ids = append(ids, r.Map(t)["jobId"].(string))
		}
		for _, id := range ids {
			waitJob(t, admin, id, "succeeded")
		}
		time.Sleep(200 * time.Millisecond)
		seen := map[string]int{}
		for _, m := range smtp.Messages() {
			for _, line := range strings.Split(m.Data, "\r\n") {
				if strings.HasPrefix(line, "Subject: bulk-") {
					seen[line]++
				}
			}
		}
		if len(seen) != n {
			t.Fatalf("%d distinct mails, want %d", len(seen), n)
		}
		for subj, c := range seen {
			if c != 1 {
				t.Fatalf("%s sent %d times", subj, c)
			}
		}
		byWorker := strings.Count(worker.Logs(), `"job succeeded"`)
		byServe := strings.Count(s.Logs(), `"job succeeded"`)
		if byWorker == 0 || byServe == 0 || byWorker+byServe != n {
			t.Fatalf("jobs run: serve %d, worker %d, want both > 0 and %d in total", byServe, byWorker, n)
		}
		t.Logf("jobs run: serve %d, worker %d", byServe, byWorker)
	})
}
