package recyclebin_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/recyclebin"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestRecycleBin(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		bin := recyclebin.New(db, engine)
		node := acl.Ref{Type: acl.Node, ID: uuid.NewString()}
		if err := engine.Register(ctx, node, nil); err != nil {
			t.Fatal(err)
		}
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		user := &auth.Principal{UserID: uuid.NewString()}

		restored, purged := map[string]bool{}, map[string]bool{}
		bin.RegisterKind("thing", func(ctx context.Context, e recyclebin.Entry) error {
			var p struct{ Name string }
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				return err
			}
			if p.Name == "taken" {
				return fault.Conflict("slug taken")
			}
			restored[p.Name] = true
			return nil
		}, func(ctx context.Context, e recyclebin.Entry) error {
			purged[e.Title] = true
			return nil
		})
		add := func(title, scope string, at time.Time) string {
			var id string
			err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				var err error
				id, err = bin.Add(ctx, recyclebin.Entry{NodeID: node.ID, Kind: "thing", Title: title, DeletedBy: admin.UserID,
					DeletedAt: at, ScopeID: scope, Payload: json.RawMessage(`{"Name":"` + title + `"}`)})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		now := time.Now()
		a := add("a", "s1", now.Add(-time.Hour))
		add("b", "s1", now.Add(-40*24*time.Hour))
		add("c", "s2", now)
		taken := add("taken", "", now)

		es, total, err := bin.List(ctx, admin, node.ID, 0, 10)
		if err != nil || total != 4 || es[0].Title != "c" && es[0].Title != "taken" {
			t.Fatalf("list %v %d %v", es, total, err)
		}
		if _, _, err := bin.List(ctx, user, node.ID, 0, 10); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("stranger: %v", err)
		}
		if _, err := bin.Restore(ctx, admin, uuid.NewString(), a); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("other node: %v", err)
		}
		if _, err := bin.Restore(ctx, admin, node.ID, taken); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("conflict: %v", err)
		}
		e, err := bin.Restore(ctx, admin, node.ID, a)
		if err != nil || !restored["a"] || e.Title != "a" {
			t.Fatalf("restore %v %v", e, err)
		}
		if _, err := bin.Restore(ctx, admin, node.ID, a); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("restored twice: %v", err)
		}
		n, _, err := bin.PurgeOlderThan(ctx, 30*24*time.Hour)
		if err != nil || n != 1 || !purged["b"] {
			t.Fatalf("purge old: %d %v %v", n, err, purged)
		}
		n, err = bin.PurgeKindForScope(ctx, "thing", "s2")
		if err != nil || n != 1 || !purged["c"] {
			t.Fatalf("purge scope: %d %v", n, err)
		}
		if err := bin.Purge(ctx, admin, node.ID, taken); err != nil || !purged["taken"] {
			t.Fatalf("purge one: %v", err)
		}
		if c, _ := bin.Count(ctx); c != 0 {
			t.Fatalf("left %d", c)
		}

		// a purge handler error rolls the whole purge back
		add("x", "", now)
		bin.RegisterKind("thing", nil, func(context.Context, recyclebin.Entry) error { return errors.New("disk gone") })
		if err := bin.PurgeNode(ctx, node.ID); err == nil {
			t.Fatal("purge must fail")
		}
		if c, _ := bin.Count(ctx); c != 1 {
			t.Fatalf("rolled back: %d", c)
		}
		// unknown kinds cannot be restored (409) but can be purged
		add2 := recyclebin.Entry{NodeID: node.ID, Kind: "mystery", Title: "m"}
		id, err := bin.Add(ctx, add2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bin.Restore(ctx, admin, node.ID, id); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("unknown kind: %v", err)
		}
	})
}

// TestRecycleBinScopes: entries of content behind a list that does not inherit
// from the node are neither listed nor restorable / purgeable for a node
// editor who cannot view (or delete in) that list; entries whose list is gone
// follow the node rule.
func TestRecycleBinScopes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		bin := recyclebin.New(db, engine)
		bin.RegisterKind("list_item", func(context.Context, recyclebin.Entry) error { return nil }, func(context.Context, recyclebin.Entry) error { return nil })
		node := acl.Ref{Type: acl.Node, ID: uuid.NewString()}
		secret := acl.Ref{Type: acl.List, ID: uuid.NewString()} // isolated from the node
		open := acl.Ref{Type: acl.List, ID: uuid.NewString()}   // inherits from the node
		for _, r := range []struct {
			ref    acl.Ref
			parent *acl.Ref
		}{{node, nil}, {secret, &node}, {open, &node}} {
			if err := engine.Register(ctx, r.ref, r.parent); err != nil {
				t.Fatal(err)
			}
		}
		if err := engine.SetInherits(ctx, secret, false); err != nil {
			t.Fatal(err)
		}
		editor := &auth.Principal{UserID: uuid.NewString()}
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		if _, err := engine.Grant(ctx, node, acl.PrincipalUser, editor.UserID, acl.Delete); err != nil {
			t.Fatal(err)
		}
		add := func(title, scope string) string {
			id, err := bin.Add(ctx, recyclebin.Entry{NodeID: node.ID, Kind: "list_item", Title: title, ScopeID: scope})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		hiddenID := add("salaries", secret.ID)
		add("agenda", open.ID)
		goneID := add("from a purged list", uuid.NewString()) // scope no longer registered
		add("a list", node.ID)

		titles := func(p *auth.Principal) (map[string]bool, int) {
			es, total, err := bin.List(ctx, p, node.ID, 0, 50)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range es {
				got[e.Title] = true
			}
			return got, total
		}
		if got, total := titles(editor); total != 3 || len(got) != 3 || got["salaries"] {
			t.Fatalf("editor sees %v (total %d)", got, total)
		}
		if got, total := titles(admin); total != 4 || !got["salaries"] {
			t.Fatalf("admin sees %v (total %d)", got, total)
		}
		if _, err := bin.Restore(ctx, editor, node.ID, hiddenID); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("restore behind the boundary: %v", err)
		}
		if err := bin.Purge(ctx, editor, node.ID, hiddenID); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("purge behind the boundary: %v", err)
		}
		// view on the list: listed, but restore / purge need delete on it
		if _, err := engine.Grant(ctx, secret, acl.PrincipalUser, editor.UserID, acl.View); err != nil {
			t.Fatal(err)
		}
		if got, total := titles(editor); total != 4 || !got["salaries"] {
			t.Fatalf("editor with view sees %v (total %d)", got, total)
		}
		if _, err := bin.Restore(ctx, editor, node.ID, hiddenID); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("restore with view only: %v", err)
		}
		if err := bin.Purge(ctx, editor, node.ID, hiddenID); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("purge with view only: %v", err)
		}
		if _, err := engine.Grant(ctx, secret, acl.PrincipalUser, editor.UserID, acl.Delete); err != nil {
			t.Fatal(err)
		}
		if _, err := bin.Restore(ctx, editor, node.ID, hiddenID); err != nil {
			t.Fatalf("restore with delete on the list: %v", err)
		}
		if err := bin.Purge(ctx, editor, node.ID, goneID); err != nil {
			t.Fatalf("purge of an entry whose list is gone: %v", err)
		}
	})
}

// TestPurgeSkipsFailingEntries: an entry whose purge handler fails stays in
// the bin and is counted; the other old entries are still purged, and the
// run ends (no endless re-reading of the failing entry).
func TestPurgeSkipsFailingEntries(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		bin := recyclebin.New(db, engine)
		node := uuid.NewString()
		bin.RegisterKind("fragile", func(context.Context, recyclebin.Entry) error { return nil },
			func(_ context.Context, e recyclebin.Entry) error {
				if e.Title == "bad" {
					return errors.New("payload unreadable")
				}
				return nil
			})
		old := time.Now().Add(-40 * 24 * time.Hour)
		for i, title := range []string{"ok1", "bad", "ok2", "ok3"} {
			err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				_, err := bin.Add(ctx, recyclebin.Entry{NodeID: node, Kind: "fragile", Title: title,
					DeletedAt: old.Add(time.Duration(i) * time.Second), Payload: json.RawMessage(`{}`)})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		purged, failed, err := bin.PurgeOlderThan(ctx, 30*24*time.Hour)
		if err != nil || purged != 3 || failed != 1 {
			t.Fatalf("purged=%d failed=%d err=%v", purged, failed, err)
		}
		if c, _ := bin.Count(ctx); c != 1 {
			t.Fatalf("entries left: %d", c)
		}
	})
}
