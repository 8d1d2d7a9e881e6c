package events

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/config"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/mail"
	"coreportal/internal/mail/mailtest"
	"coreportal/internal/outbox"
	"coreportal/internal/services"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
	"coreportal/internal/users"
)

func TestReceiversAndDispatch(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		smtp := mailtest.StartT(t, mailtest.Options{})
		us := users.NewService(db, bus.NewMemory())
		if _, err := us.Bootstrap(ctx, "admin", "admin-password-1"); err != nil {
			t.Fatal(err)
		}
		alice, err := us.Create(ctx, users.NewUser{Login: "alice", Password: "alice-password-1"})
		if err != nil {
			t.Fatal(err)
		}
		q := jobs.New(db)
		q.Poll, q.Backoff = 20*time.Millisecond, time.Millisecond
		svc := services.New(db, q)
		m := mail.New(svc, q, config.Config{})
		if _, err := m.SaveSettings(ctx, mail.SMTPSettingsInput{Host: smtp.Host, Port: smtp.Port, FromEmail: "portal@example.com"}); err != nil {
			t.Fatal(err)
		}
		ev := New(db, q, m, us)
		admin := auth.WithPrincipal(ctx, &auth.Principal{UserID: alice.ID, IsAdmin: true})
		listA, listB := uuid.NewString(), uuid.NewString()
		good := NewEventReceiver{EventName: ItemUpdated, Title: "mail on update", ServiceKey: "notifications", JobType: JobSendEventEmail,
			Config: map[string]any{"listId": listA, "to": []any{"watch@example.com"}, "subject": "{{eventName}} {{resourceId}}",
				"text": "by {{userLogin}} ({{userId}}) on {{resourceType}}: {{details}}"}}

		for name, tc := range map[string]struct {
			ctx   context.Context
			patch func(*NewEventReceiver)
			code  fault.Code
			field string
		}{
			"anonymous":  {ctx, func(*NewEventReceiver) {}, fault.CodeUnauthorized, ""},
			"not admin":  {auth.WithPrincipal(ctx, &auth.Principal{UserID: alice.ID}), func(*NewEventReceiver) {}, fault.CodeForbidden, ""},
			"event":      {admin, func(r *NewEventReceiver) { r.EventName = "item.exploded" }, fault.CodeValidation, "eventName"},
			"job type":   {admin, func(r *NewEventReceiver) { r.JobType = "x.y" }, fault.CodeValidation, "jobType"},
			"service":    {admin, func(r *NewEventReceiver) { r.ServiceKey = "ad-sync" }, fault.CodeValidation, "serviceKey"},
			"list id":    {admin, func(r *NewEventReceiver) { r.Config = map[string]any{"listId": "nope"} }, fault.CodeValidation, "config.listId"},
			"no to":      {admin, func(r *NewEventReceiver) { r.Config = map[string]any{"subject": "s", "text": "t"} }, fault.CodeValidation, "config.to"},
			"bad to":     {admin, func(r *NewEventReceiver) { r.Config = map[string]any{"to": "x", "subject": "s", "text": "t"} }, fault.CodeValidation, "config.to"},
			"no subject": {admin, func(r *NewEventReceiver) { r.Config = map[string]any{"to": "a@example.com", "text": "t"} }, fault.CodeValidation, "config.subject"},
			"no title":   {admin, func(r *NewEventReceiver) { r.Title = " " }, fault.CodeValidation, "title"},
			"no text":    {admin, func(r *NewEventReceiver) { r.Config = map[string]any{"to": "a@example.com", "subject": "s"} }, fault.CodeValidation, "config.text"},
		} {
			in := good
			tc.patch(&in)
			_, err := ev.Create(tc.ctx, in)
			fe, ok := fault.As(err)
			if !ok || fe.Code != tc.code || (tc.field != "" && fe.Details["field"] != tc.field) {
				t.Errorf("%s: %v, want %s %s", name, err, tc.code, tc.field)
			}
		}
		// the list permission wiring point
		ev.CanEditList = func(ctx context.Context, id string) (bool, error) { return id != listB, nil }
		bad := good
		bad.Config = map[string]any{"listId": listB, "to": "a@example.com", "subject": "s", "text": "t"}
		if _, err := ev.Create(admin, bad); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("create without edit on the list: %v", err)
		}
		r, err := ev.Create(admin, good)
		if err != nil || r.ListID == nil || *r.ListID != listA {
			t.Fatalf("create: %+v %v", r, err)
		}
		del := NewEventReceiver{EventName: ItemDeleted, Title: "deleted anywhere", ServiceKey: "notifications", JobType: JobSendEventEmail,
			Config: map[string]any{"to": "audit@example.com", "subject": "gone {{resourceId}}", "text": "snapshot {{details}}"}}
		if _, err := ev.Create(admin, del); err != nil {
			t.Fatal(err)
		}
		if rs, _ := ev.List(admin, listA); len(rs) != 1 {
			t.Fatalf("list of listA: %d", len(rs))
		}
		if rs, _ := ev.List(admin, ""); len(rs) != 2 {
			t.Fatalf("all receivers: %d", len(rs))
		}

		write := func(e outbox.Event) error {
			return db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return outbox.Write(ctx, db, e) })
		}
		for i := 1; i <= 3; i++ {
			if err := write(outbox.Event{Name: ItemUpdated, ResourceType: "list_item", ResourceID: "7", ScopeID: listA, ActorID: alice.ID,
				Payload: map[string]any{"id": 7, "title": "rev" + string(rune('0'+i))}}); err != nil {
				t.Fatal(err)
			}
		}
		// events of another list, another event name and a rolled-back transaction reach nobody
		_ = write(outbox.Event{Name: ItemUpdated, ResourceType: "list_item", ResourceID: "8", ScopeID: listB, Payload: map[string]any{}})
		_ = db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			_ = outbox.Write(ctx, db, outbox.Event{Name: ItemDeleted, ResourceType: "list_item", ResourceID: "99", ScopeID: listA, Payload: map[string]any{}})
			return errors.New("rollback")
		})
		_ = write(outbox.Event{Name: ItemDeleted, ResourceType: "list_item", ResourceID: "9", ScopeID: listB, ActorID: alice.ID,
			Payload: map[string]any{"id": 9, "title": "last words"}})

		if n, err := ev.DispatchOnce(ctx); err != nil || n != 5 {
			t.Fatalf("dispatch: %d %v", n, err)
		}
		if n, _ := ev.DispatchOnce(ctx); n != 0 {
			t.Fatalf("dispatched twice: %d", n)
		}
		q.Concurrency = 4
		go q.Run(ctx)
		got := smtp.Wait(t, 10*time.Second, mailtest.Contains("gone 9", `snapshot {"id":9,"title":"last words"}`))
		if got.To[0] != "audit@example.com" {
			t.Fatalf("deleted mail: %+v", got)
		}
		smtp.Wait(t, 10*time.Second, mailtest.Contains("rev3"))
		var order []string
		for _, msg := range smtp.Messages() {
			if msg.To[0] != "watch@example.com" {
				continue
			}
			if !strings.Contains(msg.Data, "listItem.updated 7") || !strings.Contains(msg.Data, "by alice ("+alice.ID+") on list_item") {
				t.Fatalf("substitutions: %s", msg.Data)
			}
			for _, rev := range []string{"rev1", "rev2", "rev3"} {
				if strings.Contains(msg.Data, rev) {
					order = append(order, rev)
				}
			}
		}
		if strings.Join(order, ",") != "rev1,rev2,rev3" {
			t.Fatalf("mails out of order or missing: %v", order)
		}
		if len(smtp.Messages()) != 4 {
			t.Fatalf("%d mails, want 4", len(smtp.Messages()))
		}
	})
}

func TestDispatchDeletesOutboxRows(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := jobs.New(db)
		ev := New(db, q, mail.New(services.New(db, q), q, config.Config{}), nil)
		for range 3 {
			_ = db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				return outbox.Write(ctx, db, outbox.Event{Name: ItemCreated, ResourceType: "list_item", ResourceID: "1", Payload: map[string]any{}})
			})
		}
		// a row marked dispatched by an earlier version
		if _, err := db.W(ctx).ExecContext(ctx, `UPDATE outbox SET dispatched_at = ? WHERE id = (SELECT min(id) FROM outbox)`, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		if n, err := ev.DispatchOnce(ctx); n != 2 || err != nil {
			t.Fatalf("dispatch: %d %v", n, err)
		}
		count := func() (n int) {
			if err := db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 1 {
			t.Fatalf("%d outbox rows after dispatch, want only the old dispatched one", n)
		}
		if n, _ := ev.st.purgeDispatched(ctx); n != 1 || count() != 0 {
			t.Fatalf("purged %d, %d rows left", n, count())
		}
	})
}

// TestCatalogueDocumented: every event a receiver may subscribe to is named
// in the API text of POST /event-receivers, the item, file, page and survey
// lifecycle included.
func TestCatalogueDocumented(t *testing.T) {
	known := catalogue()
	for _, n := range []string{"listItem.restored", "file.restored", "page.restored", "survey.created", "survey.deleted",
		"survey.restored", "group.memberAdded", "group.memberRemoved"} {
		if !known[n] {
			t.Errorf("%s is not in the catalogue", n)
		}
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(webhookDoc, func(r rune) bool { return strings.ContainsRune(" \n,;()", r) }) {
		words[w] = true
	}
	for _, n := range Catalogue {
		if !words[n] {
			t.Errorf("%s is missing from the documented event catalogue", n)
		}
	}
}
