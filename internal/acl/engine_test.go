package acl_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// fixture writes users, groups and memberships straight into the tables
// (the groups service is tested over HTTP; here the engine is under test).
type fixture struct {
	t   *testing.T
	db  *store.DB
	e   *acl.Engine
	ctx context.Context
}

func (f *fixture) user(login string) *auth.Principal {
	id := uuid.NewString()
	now := time.Now().UTC()
	_, err := f.db.W(f.ctx).ExecContext(f.ctx, `INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, login, login, login, now, now)
	if err != nil {
		f.t.Fatal(err)
	}
	return &auth.Principal{UserID: id, Login: login}
}

func (f *fixture) group(name, kind string, members ...*auth.Principal) string {
	id := uuid.NewString()
	now := time.Now().UTC()
	if _, err := f.db.W(f.ctx).ExecContext(f.ctx, `INSERT INTO groups (id, name, group_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`, id, name, kind, now, now); err != nil {
		f.t.Fatal(err)
	}
	for _, m := range members {
		f.join(id, m)
	}
	return id
}

func (f *fixture) join(group string, m *auth.Principal) {
	if _, err := f.db.W(f.ctx).ExecContext(f.ctx, `INSERT INTO group_members (group_id, user_id, added_at) VALUES (?, ?, ?)`, group, m.UserID, time.Now().UTC()); err != nil {
		f.t.Fatal(err)
	}
	f.e.Invalidate(f.ctx)
}

func (f *fixture) obj(t acl.Type, parent *acl.Ref) acl.Ref {
	r := acl.Ref{Type: t, ID: uuid.NewString()}
	err := f.db.InTx(f.ctx, func(ctx context.Context, _ *store.Tx) error { return f.e.Register(ctx, r, parent) })
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) grant(r acl.Ref, ptype, pid string, l acl.Level) {
	if _, err := f.e.Grant(f.ctx, r, ptype, pid, l); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) level(p *auth.Principal, r acl.Ref) acl.Level {
	f.t.Helper()
	l, err := f.e.Level(f.ctx, p, r)
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	return &fixture{t: t, db: db, e: acl.New(db, bus.NewMemory()), ctx: context.Background()}
}

func TestParseLevel(t *testing.T) {
	for _, c := range []struct {
		in   string
		want acl.Level
		ok   bool
	}{{"view", acl.View, true}, {"add", acl.Add, true}, {"edit", acl.Edit, true}, {"delete", acl.Delete, true}, {"", acl.None, false}, {"VIEW", acl.None, false}, {"admin", acl.None, false}} {
		got, err := acl.ParseLevel(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseLevel(%q) = %v, %v", c.in, got, err)
		}
		if c.ok && got.String() != c.in {
			t.Errorf("String() = %q", got.String())
		}
	}
	if acl.None.String() != "" {
		t.Fatal("None must print empty")
	}
}

func TestEngineBasics(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		alice, bob := f.user("alice"), f.user("bob")
		root := f.obj(acl.Node, nil)
		child := f.obj(acl.Node, &root)
		list := f.obj(acl.List, &child)
		item := f.obj(acl.ListItem, &list)

		if l := f.level(alice, item); l != acl.None {
			t.Fatalf("no records: %v", l)
		}
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		if l := f.level(admin, item); l != acl.Delete {
			t.Fatalf("admin: %v", l)
		}
		if l := f.level(admin, acl.Ref{Type: acl.Node, ID: uuid.NewString()}); l != acl.None {
			t.Fatalf("admin on unknown: %v", l)
		}
		f.grant(root, acl.PrincipalUser, alice.UserID, acl.View)
		if l := f.level(alice, item); l != acl.View {
			t.Fatalf("inherited: %v", l)
		}
		f.grant(list, acl.PrincipalUser, alice.UserID, acl.Edit)
		if l := f.level(alice, item); l != acl.Edit {
			t.Fatalf("max along chain: %v", l)
		}
		if err := f.e.Require(f.ctx, bob, item, acl.View); err == nil {
			t.Fatal("bob must not see")
		}

		// isolation copies the parent's effective rights and becomes a boundary
		if err := f.e.SetInherits(f.ctx, item, false); err != nil {
			t.Fatal(err)
		}
		if l := f.level(alice, item); l != acl.Edit {
			t.Fatalf("copied: %v", l)
		}
		f.grant(root, acl.PrincipalUser, bob.UserID, acl.Delete)
		if l := f.level(bob, item); l != acl.None {
			t.Fatalf("boundary ignored: %v", l)
		}
		if l := f.level(bob, list); l != acl.Delete {
			t.Fatalf("bob on list: %v", l)
		}
		v, err := f.e.Visibility(f.ctx, bob, acl.ListItem, list, acl.Children)
		if err != nil || v.Level() != acl.Delete || len(v.Hidden()) != 1 || v.Hidden()[0] != item.ID || v.Sees(item.ID) {
			t.Fatalf("bob visibility: %+v %v", v, err)
		}
		v, err = f.e.Visibility(f.ctx, alice, acl.ListItem, list, acl.Children)
		if err != nil || v.Level() != acl.Edit || len(v.Hidden()) != 0 || !v.Decisive(item.ID) || !v.Sees(item.ID) {
			t.Fatalf("alice visibility: %+v %v", v, err)
		}
		inh, err := f.e.Inherits(f.ctx, item)
		if err != nil || inh {
			t.Fatalf("inherits: %v %v", inh, err)
		}
		if err := f.e.SetInherits(f.ctx, item, true); err != nil {
			t.Fatal(err)
		}
		if l := f.level(bob, item); l != acl.Delete {
			t.Fatalf("restored: %v", l)
		}
		if es, _ := f.e.Entries(f.ctx, item); len(es) != 0 {
			t.Fatalf("explicit records must be gone: %v", es)
		}

		// groups, membership changes and group removal
		carol := f.user("carol")
		g := f.group("editors", "portal")
		f.grant(child, acl.PrincipalGroup, g, acl.Add)
		if l := f.level(carol, item); l != acl.None {
			t.Fatalf("not yet a member: %v", l)
		}
		f.join(g, carol)
		if l := f.level(carol, item); l != acl.Add {
			t.Fatalf("member: %v", l)
		}
		ps, _ := f.e.Principals(f.ctx, carol.UserID)
		if len(ps) != 2 || ps[0] != carol.UserID || ps[1] != g {
			t.Fatalf("principals: %v", ps)
		}
		if err := f.e.ForgetPrincipal(f.ctx, acl.PrincipalGroup, g); err != nil {
			t.Fatal(err)
		}
		if l := f.level(carol, item); l != acl.None {
			t.Fatalf("group forgotten: %v", l)
		}

		// moving and forgetting
		other := f.obj(acl.Node, nil)
		if err := f.e.Move(f.ctx, list, &other); err != nil {
			t.Fatal(err)
		}
		if l := f.level(alice, item); l != acl.Edit { // record on the list itself
			t.Fatalf("after move: %v", l)
		}
		if l := f.level(bob, item); l != acl.None {
			t.Fatalf("bob after move: %v", l)
		}
		cyc, _ := f.e.IsAncestor(f.ctx, root, child)
		if !cyc {
			t.Fatal("root is an ancestor of child")
		}
		att := f.obj(acl.Attachment, &item)
		f.grant(att, acl.PrincipalUser, bob.UserID, acl.View)
		if err := f.e.ForgetTree(f.ctx, list); err != nil {
			t.Fatal(err)
		}
		for _, r := range []acl.Ref{list, item, att} {
			if ok, _ := f.e.Exists(f.ctx, r); ok {
				t.Fatalf("%s survived ForgetTree", r.Type)
			}
		}
		if es, _ := f.e.Entries(f.ctx, att); len(es) != 0 {
			t.Fatalf("records survived ForgetTree: %v", es)
		}
		if ok, _ := f.e.Exists(f.ctx, other); !ok {
			t.Fatal("ForgetTree removed the parent")
		}
		if err := f.e.Forget(f.ctx, item); err != nil {
			t.Fatal(err)
		}
		if l := f.level(admin, item); l != acl.None {
			t.Fatalf("forgotten: %v", l)
		}
	})
}

// TestNodeLevelsMatchLevel: the one-query walk of GET /nodes agrees with the
// per-resource chain walk on a random tree with isolated nodes and groups.
func TestNodeLevelsMatchLevel(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		u := f.user("u")
		g := f.group("g", "portal", u)
		var ns []acl.Ref
		for i := 0; i < 40; i++ {
			var parent *acl.Ref
			if i > 0 && i%7 != 0 {
				p := ns[(i*5)%len(ns)]
				parent = &p
			}
			n := f.obj(acl.Node, parent)
			ns = append(ns, n)
			switch i % 5 {
			case 1:
				f.grant(n, acl.PrincipalUser, u.UserID, acl.Level(1+i%4))
			case 3:
				f.grant(n, acl.PrincipalGroup, g, acl.Level(1+(i/3)%4))
			}
			if i%11 == 4 {
				if err := f.e.SetInherits(f.ctx, n, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		all, err := f.e.NodeLevels(f.ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, n := range ns {
			want := f.level(u, n)
			if all[n.ID] != want {
				t.Fatalf("node %s: NodeLevels %v, Level %v", n.ID, all[n.ID], want)
			}
			if want > acl.None {
				seen++
			}
		}
		if seen == 0 || seen == len(ns) {
			t.Fatalf("degenerate tree: %d of %d visible", seen, len(ns))
		}
	})
}

// TestNumberResolvers: /permissions accepts public numbers through the
// resolvers lists and libraries register.
func TestNumberResolvers(t *testing.T) {
	db := storetest.OpenSQLite(t)
	f := newFixture(t, db)
	n := f.obj(acl.Node, nil)
	list := f.obj(acl.List, &n)
	item := f.obj(acl.ListItem, &list)
	f.e.RegisterNumberResolver(acl.ListItem, func(_ context.Context, scope string, num int64) (string, error) {
		if scope == list.ID && num == 7 {
			return item.ID, nil
		}
		return "", store.ErrNotFound
	})
	ref, err := f.e.Resolve(f.ctx, acl.Target{ResourceType: "list_item", ResourceID: "7", ListID: list.ID})
	if err != nil || ref != item {
		t.Fatalf("resolve: %v %v", ref, err)
	}
	if _, err := f.e.Resolve(f.ctx, acl.Target{ResourceType: "list_item", ResourceID: "8", ListID: list.ID}); !fault.Is(err, fault.CodeNotFound) {
		t.Fatalf("unknown number: %v", err)
	}
	if _, err := f.e.Resolve(f.ctx, acl.Target{ResourceType: "file", ResourceID: "7", LibraryID: list.ID}); !fault.Is(err, fault.CodeNotFound) {
		t.Fatalf("no file resolver: %v", err)
	}
	for _, tg := range []acl.Target{{ResourceType: "list_item", ResourceID: "7"}, {ResourceType: "list", ResourceID: "7", ListID: list.ID},
		{ResourceType: "list_item", ResourceID: "-1", ListID: list.ID}, {ResourceType: "x", ResourceID: item.ID}} {
		if _, err := f.e.Resolve(f.ctx, tg); !fault.Is(err, fault.CodeValidation) {
			t.Fatalf("%v: %v", tg, err)
		}
	}
	u := f.user("u")
	f.grant(list, acl.PrincipalUser, u.UserID, acl.Add)
	perms := acl.NewPermissions(f.e, func(context.Context, string, string) (bool, error) { return true, nil })
	if l, err := perms.Check(f.ctx, u, acl.Target{ResourceType: "list_item", ResourceID: "7", ListID: list.ID}); err != nil || l != acl.Add {
		t.Fatalf("check by number: %v %v", l, err)
	}
}
