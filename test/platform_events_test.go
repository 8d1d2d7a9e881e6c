package test

import (
	"context"
	"strings"
	"testing"
	"time"

	"coreportal/internal/mail/mailtest"
	"coreportal/internal/outbox"
	"coreportal/internal/store"
	"coreportal/test/kit"
)

func TestPlatformEventReceivers(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		smtp := mailtest.StartT(t, mailtest.Options{})
		admin := s.Admin(t)
		user, userID := s.CreateUser(t, "eve", false)
		configureSMTP(t, admin, smtp, nil)
		listDB := openDB(t, s)
		listA, listB := registerList(t, listDB), registerList(t, listDB)
		receiver := map[string]any{"eventName": "listItem.updated", "title": "Mail on change", "serviceKey": "notifications",
			"jobType": "notifications.sendEventEmail", "config": map[string]any{"listId": listA, "to": "watch@example.com",
				"subject": "[{{eventName}}] item {{resourceId}}", "text": "{{userLogin}} ({{userId}}) changed {{resourceType}} {{resourceId}}: {{details}}"}}

		s.Anon().Do(t, "POST", "/event-receivers", receiver).Expect(t, 401, "UNAUTHORIZED")
		user.Do(t, "POST", "/event-receivers", receiver).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "GET", "/event-receivers", nil).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "GET", "/event-receivers?listId=nope", nil).Expect(t, 400, "VALIDATION_ERROR")
		for field, patch := range map[string]func(m map[string]any){
			"eventName":  func(m map[string]any) { m["eventName"] = "listItem.exploded" },
			"jobType":    func(m map[string]any) { m["jobType"] = "bogus.job" },
			"serviceKey": func(m map[string]any) { m["serviceKey"] = "ad-sync" },
			"config.listId": func(m map[string]any) {
				m["config"] = map[string]any{"listId": 12, "to": "a@example.com", "subject": "s", "text": "t"}
			},
			"config.to":      func(m map[string]any) { m["config"] = map[string]any{"to": "not-mail", "subject": "s", "text": "t"} },
			"config.subject": func(m map[string]any) { m["config"] = map[string]any{"to": "a@example.com", "text": "t"} },
			"config.text":    func(m map[string]any) { m["config"] = map[string]any{"to": "a@example.com", "subject": "s"} },
		} {
			body := map[string]any{}
			for k, v := range receiver {
				body[k] = v
			}
			patch(body)
			r := admin.Do(t, "POST", "/event-receivers", body).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != field {
				t.Errorf("%s: %s", field, r.Raw)
			}
		}
		created := admin.Do(t, "POST", "/event-receivers", receiver).Expect(t, 201).Map(t)
		if created["listId"] != listA || created["eventName"] != "listItem.updated" {
			t.Fatalf("created: %v", created)
		}
		deleted := admin.Do(t, "POST", "/event-receivers", map[string]any{"eventName": "listItem.deleted", "title": "Audit deletions",
			"serviceKey": "notifications", "jobType": "notifications.sendEventEmail",
			"config": map[string]any{"to": []string{"audit@example.com"}, "subject": "deleted {{resourceId}}", "text": "snapshot {{details}}"}}).Expect(t, 201).Map(t)
		var list []map[string]any
		admin.Do(t, "GET", "/event-receivers?listId="+listA, nil).Expect(t, 200).Into(t, &list)
		if len(list) != 1 || list[0]["id"] != created["id"] {
			t.Fatalf("receivers of list A: %v", list)
		}
		admin.Do(t, "GET", "/event-receivers", nil).Expect(t, 200).Into(t, &list)
		if len(list) != 2 {
			t.Fatalf("receivers: %v", list)
		}

		// item events written in the item's transaction, as the lists capability does
		db := openDB(t, s)
		ctx := context.Background()
		write := func(e outbox.Event) {
			t.Helper()
			if err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return outbox.Write(ctx, db, e) }); err != nil {
				t.Fatal(err)
			}
		}
		write(outbox.Event{Name: "listItem.updated", ResourceType: "list_item", ResourceID: "42", ScopeID: listA, ActorID: userID,
			Payload: map[string]any{"id": 42, "field_values": map[string]any{"title": "Budget"}}})
		write(outbox.Event{Name: "listItem.updated", ResourceType: "list_item", ResourceID: "43", ScopeID: listB, ActorID: userID, Payload: map[string]any{"id": 43}})
		write(outbox.Event{Name: "listItem.deleted", ResourceType: "list_item", ResourceID: "44", ScopeID: listB, ActorID: userID,
			Payload: map[string]any{"id": 44, "field_values": map[string]any{"title": "Gone but kept"}}})

		got := smtp.Wait(t, 15*time.Second, mailtest.Contains("[listItem.updated] item 42"))
		for _, want := range []string{"eve (" + userID + ") changed list_item 42", `"title":"Budget"`} {
			if !strings.Contains(got.Data, want) {
				t.Fatalf("mail lacks %q:\n%s", want, got.Data)
			}
		}
		got = smtp.Wait(t, 15*time.Second, mailtest.Contains("deleted 44", "Gone but kept"))
		if got.To[0] != "audit@example.com" {
			t.Fatalf("deleted mail to %v", got.To)
		}
		time.Sleep(700 * time.Millisecond)
		for _, m := range smtp.Messages() {
			if strings.Contains(m.Data, "item 43") {
				t.Fatal("a receiver of list A got an event of list B")
			}
		}
		var jobs []map[string]any
		admin.Do(t, "GET", "/jobs?type=notifications.sendEventEmail", nil).Expect(t, 200).Into(t, &jobs)
		if len(jobs) != 2 {
			t.Fatalf("event jobs: %v", jobs)
		}

		admin.Do(t, "DELETE", "/event-receivers/"+deleted["id"].(string), nil).Expect(t, 200)
		admin.Do(t, "DELETE", "/event-receivers/"+deleted["id"].(string), nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "DELETE", "/event-receivers/nope", nil).Expect(t, 400, "VALIDATION_ERROR")
	})
}
