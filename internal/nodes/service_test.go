package nodes_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestCheckSlug(t *testing.T) {
	for _, c := range []struct {
		slug string
		ok   bool
	}{{"hr", true}, {"a-b-9", true}, {"2026", true}, {"", false}, {"A", false}, {"a_b", false}, {"a--b", false}, {"-a", false}, {"a-", false}, {"é", false}, {"a b", false}} {
		if err := nodes.CheckSlug("slug", c.slug); (err == nil) != c.ok {
			t.Errorf("CheckSlug(%q) = %v", c.slug, err)
		}
	}
}

// TestDeleteRules: content registered under a node (lists, libraries…) blocks
// its deletion; delete hooks run in the deleting transaction.
func TestDeleteRules(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		svc := nodes.New(db, engine)
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		n, err := svc.Create(ctx, admin, nodes.NewNode{Slug: "a", Title: "A"})
		if err != nil {
			t.Fatal(err)
		}
		list := acl.Ref{Type: acl.List, ID: uuid.NewString()}
		if err := engine.Register(ctx, list, &acl.Ref{Type: acl.Node, ID: n.ID}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, admin, n.ID); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("node with a list: %v", err)
		}
		if err := engine.Forget(ctx, list); err != nil {
			t.Fatal(err)
		}
		hooked := ""
		svc.OnDelete(func(ctx context.Context, id string) error { hooked = id; return nil })
		if err := svc.Delete(ctx, admin, n.ID); err != nil {
			t.Fatal(err)
		}
		if hooked != n.ID {
			t.Fatalf("hook got %q", hooked)
		}
		if ok, _ := engine.Exists(ctx, nodes.Ref(n.ID)); ok {
			t.Fatal("the node is still registered in the ACL")
		}
		path, err := svc.Path(ctx, n.ID)
		if !fault.Is(err, fault.CodeNotFound) || path != nil {
			t.Fatalf("path of a deleted node: %v %v", path, err)
		}
	})
}
