package test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/mail/mailtest"
	"coreportal/internal/outbox"
	"coreportal/internal/store"
	"coreportal/test/kit"
)

// The stored SMTP password is never handed to a server or user it was not
// entered for: changing host, port or user needs the password again (or an
// explicit empty one), so an admin session cannot redirect the secret.
func TestPlatformSMTPPasswordNotSentToNewServer(t *testing.T) {
	t.Parallel()
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

// Ids in other spellings than the canonical lower-case 8-4-4-4-12 never
// reach SQL (PostgreSQL answered 500 to urn:uuid:...) and a scoped receiver
// stores its list id in the form outbox events carry, so it fires.
func TestPlatformNonCanonicalUUIDs(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		smtp := mailtest.StartT(t, mailtest.Options{})
		admin := s.Admin(t)
		configureSMTP(t, admin, smtp, nil)
		job := admin.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 202).Map(t)["jobId"].(string)
		forms := func(id string) map[string]bool { // spelling -> accepted as the same id
			return map[string]bool{
				strings.ToUpper(id):               true,
				"urn:uuid:" + id:                  false,
				"{" + id + "}":                    false,
				strings.ReplaceAll(id, "-", ""):   false,
				"URN:UUID:" + strings.ToUpper(id): false,
			}
		}
		for form, same := range forms(job) {
			r := admin.Do(t, "GET", "/jobs/"+url.PathEscape(form), nil)
			switch {
			case r.Status >= 500:
				t.Errorf("GET /jobs/%s: %d %s", form, r.Status, r.Raw)
			case same && (r.Status != 200 || r.Map(t)["id"] != job):
				t.Errorf("GET /jobs/%s: %d %s, want the job", form, r.Status, r.Raw)
			case !same && r.Status == 200 && r.Map(t)["id"] != job:
				t.Errorf("GET /jobs/%s: %s", form, r.Raw)
			case r.Status != 200 && r.Status != 400 && r.Status != 404:
				t.Errorf("GET /jobs/%s: %d %s", form, r.Status, r.Raw)
			}
		}
		// page numbers whose offset overflows are refused, never a 500
		for _, page := range []string{"9223372036854775807", "4611686018427387905", "1000001"} {
			admin.Do(t, "GET", "/jobs?limit=4&page="+page, nil).Expect(t, 400, "VALIDATION_ERROR")
		}

		db := openDB(t, s)
		ctx := context.Background()
		list := registerList(t, db)
		body := map[string]any{"eventName": "listItem.created", "title": "Upper-case list", "serviceKey": "notifications",
			"jobType": "notifications.sendEventEmail", "config": map[string]any{"listId": strings.ToUpper(list), "to": "watch@example.com",
				"subject": "created {{resourceId}}", "text": "new item"}}
		created := admin.Do(t, "POST", "/event-receivers", body).Expect(t, 201).Map(t)
		if created["listId"] != list || created["config"].(map[string]any)["listId"] != list {
			t.Fatalf("list id not canonical: %v", created)
		}
		for _, bad := range []string{"urn:uuid:" + list, "{" + list + "}", strings.ReplaceAll(list, "-", "")} {
			body["config"].(map[string]any)["listId"] = bad
			r := admin.Do(t, "POST", "/event-receivers", body).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "config.listId" {
				t.Errorf("%s: %s", bad, r.Raw)
			}
		}
		var rs []map[string]any
		admin.Do(t, "GET", "/event-receivers?listId="+strings.ToUpper(list), nil).Expect(t, 200).Into(t, &rs)
		if len(rs) != 1 {
			t.Fatalf("receivers of the list by upper-case id: %v", rs)
		}
		if err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			return outbox.Write(ctx, db, outbox.Event{Name: "listItem.created", ResourceType: "list_item", ResourceID: "7", ScopeID: list})
		}); err != nil {
			t.Fatal(err)
		}
		smtp.Wait(t, 15*time.Second, mailtest.Contains("created 7"))

		id := created["id"].(string)
		gone := false
		for form, same := range forms(id) {
			if same {
				continue // deleted below
			}
			// 400 here; 200 (deleted) once a middleware canonicalises path ids
			r := admin.Do(t, "DELETE", "/event-receivers/"+url.PathEscape(form), nil)
			if r.Status != 400 && r.Status != 404 && r.Status != 200 {
				t.Errorf("DELETE /event-receivers/%s: %d %s", form, r.Status, r.Raw)
			}
			gone = gone || r.Status == 200
		}
		if !gone {
			admin.Do(t, "DELETE", "/event-receivers/"+strings.ToUpper(id), nil).Expect(t, 200)
		}
		admin.Do(t, "GET", "/event-receivers?listId="+list, nil).Expect(t, 200).Into(t, &rs)
		if len(rs) != 0 {
			t.Fatalf("not deleted: %v", rs)
		}
	})
}

// PATCH /services/notifications and PUT /admin/settings/smtp write the same
// services row; run at the same time, neither is lost.
func TestPlatformConcurrentServiceAndSMTPUpdates(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		smtp := mailtest.StartT(t, mailtest.Options{})
		admin := s.Admin(t)
		for round := 0; round < 15; round++ {
			enabled := round%2 == 0
			name := fmt.Sprintf("Portal %d", round)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				admin.Do(t, "PATCH", "/services/notifications", map[string]any{"isEnabled": enabled}).Expect(t, 200)
			}()
			go func() {
				defer wg.Done()
				admin.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": smtp.Host, "port": smtp.Port,
					"fromEmail": "portal@example.com", "fromName": name}).Expect(t, 200)
			}()
			wg.Wait()
			var list []map[string]any
			admin.Do(t, "GET", "/services", nil).Expect(t, 200).Into(t, &list)
			for _, r := range list {
				if r["key"] == "notifications" && r["isEnabled"] != enabled {
					t.Fatalf("round %d: the switch was lost: %v", round, r)
				}
			}
			if v := admin.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t); v["fromName"] != name {
				t.Fatalf("round %d: the settings were lost: %v", round, v)
			}
		}
	})
}
