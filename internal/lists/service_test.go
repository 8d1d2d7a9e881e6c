package lists

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
	"coreportal/internal/users"
)

type fixture struct {
	svc   *Service
	admin *auth.Principal
	node  string
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	t.Helper()
	ctx := context.Background()
	b := bus.NewMemory()
	t.Cleanup(func() { b.Close() })
	us := users.NewService(db, b)
	if _, err := us.Bootstrap(ctx, "admin", "admin-password-1"); err != nil {
		t.Fatal(err)
	}
	u, err := us.AccountByLogin(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	admin := &auth.Principal{UserID: u.ID, Login: "admin", DisplayName: "Administrator", IsAdmin: true}
	engine := acl.New(db, b)
	ns := nodes.New(db, engine)
	n, err := ns.Create(ctx, admin, nodes.NewNode{Slug: "root", Title: "Root"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: NewService(db, engine, ns), admin: admin, node: n.ID}
}

func raws(m map[string]any) Values {
	out := Values{}
	for k, v := range m {
		j, _ := json.Marshal(v)
		out[k] = j
	}
	return out
}

func TestServiceBasics(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Tasks", Slug: "tasks"})
		if err != nil {
			t.Fatal(err)
		}
		typ, title := "number", "Amount"
		if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{Title: &title, FieldType: &typ}); err != nil {
			t.Fatal(err)
		}
		it, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "One", "field_3": 5}))
		if err != nil {
			t.Fatal(err)
		}
		if it.ID != 1 {
			t.Fatalf("number %d", it.ID)
		}
		items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: `{"conditions":[{"column":"field_3","op":"gte","value":5}]}`})
		if err != nil || len(items) != 1 || meta.Total != 1 {
			t.Fatalf("list: %v %d %v", err, len(items), meta.Total)
		}
		if _, err := f.svc.UpdateItem(ctx, f.admin, l.ID, "1", raws(map[string]any{"field_3": 6})); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.DeleteItem(ctx, f.admin, l.ID, it.GUID); err != nil {
			t.Fatal(err)
		}
		// every change wrote its event in the item's transaction, the delete with the snapshot
		rows, err := db.Q(ctx).QueryContext(ctx, "SELECT event_name, resource_id, scope_id, payload FROM outbox ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var name, res, scope, payload string
			if err := rows.Scan(&name, &res, &scope, &payload); err != nil {
				t.Fatal(err)
			}
			if res != it.GUID || scope != l.ID {
				t.Fatalf("event %s for %s/%s", name, res, scope)
			}
			var p struct {
				Item ItemOut `json:"item"`
			}
			if err := json.Unmarshal([]byte(payload), &p); err != nil || p.Item.GUID != it.GUID {
				t.Fatalf("payload %s", payload)
			}
			if name == "listItem.deleted" && p.Item.FieldValues[l.Fields[0].ID] != "One" {
				t.Fatalf("deleted snapshot %s", payload)
			}
			names = append(names, name)
		}
		if strings.Join(names, ",") != "listItem.created,listItem.updated,listItem.deleted" {
			t.Fatalf("events %v", names)
		}
	})
}
