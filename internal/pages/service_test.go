package pages_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/pages"
	"coreportal/internal/recyclebin"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestPagesService runs the page rules on SQLite and PostgreSQL: slug
// uniqueness among live pages, sanitising, soft delete, restore and purge.
func TestPagesService(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		bin := recyclebin.New(db, engine)
		svc := pages.New(db, engine, bin)
		bin.RegisterKind(pages.Kind, svc.Restore, svc.Purge)
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		stranger := &auth.Principal{UserID: uuid.NewString()}
		n, err := nodes.New(db, engine).Create(ctx, admin, nodes.NewNode{Slug: "n", Title: "N"})
		if err != nil {
			t.Fatal(err)
		}
		pg, err := svc.Create(ctx, admin, pages.NewPage{NodeID: n.ID, Slug: "home", Title: " Home ", Content: `<p onclick="x()">hi</p><script>x()</script>`})
		if err != nil {
			t.Fatal(err)
		}
		if pg.Title != "Home" || pg.Content != "<p>hi</p>" {
			t.Fatalf("created %+v", pg)
		}
		if _, err := svc.Create(ctx, admin, pages.NewPage{NodeID: n.ID, Slug: "home", Title: "x"}); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("duplicate slug: %v", err)
		}
		if _, err := svc.Create(ctx, admin, pages.NewPage{NodeID: n.ID, Slug: "big", Title: "x", Content: strings.Repeat("a", pages.MaxContent+1)}); !fault.Is(err, fault.CodeValidation) {
			t.Fatalf("oversized content: %v", err)
		}
		if _, err := svc.Get(ctx, stranger, pg.ID); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("stranger: %v", err)
		}
		if _, err := svc.Get(ctx, stranger, uuid.NewString()); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("missing: %v", err)
		}
		if err := svc.Delete(ctx, admin, pg.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Get(ctx, admin, pg.ID); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("deleted page: %v", err)
		}
		if _, err := svc.ResolveSlug(ctx, n.ID, "home"); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("deleted page resolves: %v", err)
		}
		// the slug is free while the page is in the bin
		again, err := svc.Create(ctx, admin, pages.NewPage{NodeID: n.ID, Slug: "home", Title: "Again"})
		if err != nil {
			t.Fatal(err)
		}
		es, _, err := bin.List(ctx, admin, n.ID, 0, 10)
		if err != nil || len(es) != 1 || es[0].Kind != pages.Kind || es[0].Title != "Home" {
			t.Fatalf("bin %+v %v", es, err)
		}
		if _, err := bin.Restore(ctx, admin, n.ID, es[0].ID); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("restore over a taken slug: %v", err)
		}
		if _, err := svc.Update(ctx, admin, again.ID, pages.Patch{Slug: ptr("again")}); err != nil {
			t.Fatal(err)
		}
		if _, err := bin.Restore(ctx, admin, n.ID, es[0].ID); err != nil {
			t.Fatal(err)
		}
		if id, err := svc.ResolveSlug(ctx, n.ID, "home"); err != nil || id != pg.ID {
			t.Fatalf("restored resolve %q %v", id, err)
		}
		if _, err := svc.Update(ctx, admin, again.ID, pages.Patch{Slug: ptr("home")}); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("rename onto a taken slug: %v", err)
		}
		// purge removes the row and the ACL registration
		if err := svc.Delete(ctx, admin, pg.ID); err != nil {
			t.Fatal(err)
		}
		es, _, _ = bin.List(ctx, admin, n.ID, 0, 10)
		if err := bin.Purge(ctx, admin, n.ID, es[0].ID); err != nil {
			t.Fatal(err)
		}
		if ok, err := engine.Exists(ctx, pages.Ref(pg.ID)); err != nil || ok {
			t.Fatalf("purged page still registered: %v %v", ok, err)
		}
		list, total, err := svc.List(ctx, admin, n.ID, 0, 10)
		if err != nil || total != 1 || list[0].ID != again.ID {
			t.Fatalf("list %+v %d %v", list, total, err)
		}
	})
}

func ptr(s string) *string { return &s }
