package lists

import (
	"context"
	"encoding/json"
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
	})
}
