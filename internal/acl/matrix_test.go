package acl_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// op is one operation of SPEC.md with the minimum level it needs on the
// resource ("Minimum levels of operations"); manageACL follows table 6.
type op struct {
	name      string
	min       acl.Level
	manageACL bool
}

var opsByType = map[acl.Type][]op{
	acl.Node:       {{"open", acl.View, false}, {"create child / survey", acl.Edit, false}, {"update", acl.Edit, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.List:       {{"open", acl.View, false}, {"create item", acl.Add, false}, {"change list", acl.Edit, false}, {"delete list", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.ListItem:   {{"read item", acl.View, false}, {"change item", acl.Edit, false}, {"delete item", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.Library:    {{"open", acl.View, false}, {"upload", acl.Add, false}, {"change", acl.Edit, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.Page:       {{"read", acl.View, false}, {"edit page", acl.Edit, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.Survey:     {{"take", acl.View, false}, {"builder / results", acl.Edit, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.File:       {{"read file", acl.View, false}, {"upload into folder", acl.Add, false}, {"rename", acl.Edit, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
	acl.Attachment: {{"download", acl.View, false}, {"delete", acl.Delete, false}, {"manage ACL", acl.Edit, true}},
}

// adminOnlyACL are the types whose records only administrators change.
var adminOnlyACL = map[acl.Type]bool{acl.List: true, acl.Library: true, acl.Survey: true, acl.ListItem: true, acl.File: true}

type world struct {
	top     acl.Ref              // node three levels above the content node
	targets map[acl.Type]acl.Ref // one resource per type, all below top
}

// buildWorld: top > n1 > n2 > n3; n3 holds list > item > attachment,
// library > folder > file, page, survey. The node target is n3.
func buildWorld(f *fixture) world {
	top := f.obj(acl.Node, nil)
	n1 := f.obj(acl.Node, &top)
	n2 := f.obj(acl.Node, &n1)
	n3 := f.obj(acl.Node, &n2)
	list := f.obj(acl.List, &n3)
	item := f.obj(acl.ListItem, &list)
	att := f.obj(acl.Attachment, &item)
	lib := f.obj(acl.Library, &n3)
	folder := f.obj(acl.File, &lib)
	file := f.obj(acl.File, &folder)
	page := f.obj(acl.Page, &n3)
	survey := f.obj(acl.Survey, &n3)
	return world{top: top, targets: map[acl.Type]acl.Ref{acl.Node: n3, acl.List: list, acl.ListItem: item, acl.Library: lib,
		acl.Page: page, acl.Survey: survey, acl.File: file, acl.Attachment: att}}
}

func TestPermissionMatrix(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		w := buildWorld(f)
		perms := acl.NewPermissions(f.e, func(context.Context, string, string) (bool, error) { return true, nil })
		someone := uuid.NewString()
		sources := []string{"direct", "portal group", "domain group", "inherited from a node 3 levels up"}
		for _, typ := range acl.Types {
			target := w.targets[typ]
			for lvl := acl.View; lvl <= acl.Delete; lvl++ {
				for _, src := range sources {
					name := fmt.Sprintf("%s/%s/%s", typ, lvl, src)
					u := f.user("u" + uuid.NewString()[:8])
					switch src {
					case "direct":
						f.grant(target, acl.PrincipalUser, u.UserID, lvl)
					case "portal group":
						f.grant(target, acl.PrincipalGroup, f.group("g", "portal", u), lvl)
					case "domain group":
						f.grant(target, acl.PrincipalGroup, f.group("d", "domain_linked", u), lvl)
					default:
						f.grant(w.top, acl.PrincipalUser, u.UserID, lvl)
					}
					if got := f.level(u, target); got != lvl {
						t.Fatalf("%s: level %v", name, got)
					}
					for _, o := range opsByType[typ] {
						var err error
						want := lvl >= o.min
						if o.manageACL {
							want = want && !adminOnlyACL[typ]
							_, err = perms.Upsert(f.ctx, u, acl.Target{ResourceType: string(typ), ResourceID: target.ID}, acl.PrincipalUser, someone, "view")
						} else {
							err = f.e.Require(f.ctx, u, target, o.min)
						}
						if want && err != nil {
							t.Fatalf("%s: %s refused: %v", name, o.name, err)
						}
						if !want && !fault.Is(err, fault.CodeForbidden) {
							t.Fatalf("%s: %s must answer 403, got %v", name, o.name, err)
						}
					}
					if o, _ := perms.List(f.ctx, u, acl.Target{ResourceType: string(typ), ResourceID: target.ID}); (o != nil) != (lvl >= acl.Edit) {
						t.Fatalf("%s: reading records with %s", name, lvl)
					}
				}
			}
			// a stranger is refused an existing resource (403, SPEC Errors 3);
			// a missing one, or an id of another type, is 404
			stranger := f.user("s" + uuid.NewString()[:8])
			if err := f.e.Require(f.ctx, stranger, target, acl.View); !fault.Is(err, fault.CodeForbidden) {
				t.Fatalf("%s: stranger got %v", typ, err)
			}
			if err := f.e.Require(f.ctx, stranger, acl.Ref{Type: typ, ID: uuid.NewString()}, acl.View); !fault.Is(err, fault.CodeNotFound) {
				t.Fatalf("%s: missing got %v", typ, err)
			}
			other := acl.Node
			if typ == acl.Node {
				other = acl.List
			}
			if err := f.e.Require(f.ctx, stranger, acl.Ref{Type: other, ID: target.ID}, acl.View); !fault.Is(err, fault.CodeNotFound) {
				t.Fatalf("%s as %s: got %v", typ, other, err)
			}
			if _, err := perms.List(f.ctx, &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}, acl.Target{ResourceType: string(other), ResourceID: target.ID}); !fault.Is(err, fault.CodeNotFound) {
				t.Fatalf("records of %s read as %s: got %v", typ, other, err)
			}
			admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
			if _, err := perms.Upsert(f.ctx, admin, acl.Target{ResourceType: string(typ), ResourceID: target.ID}, acl.PrincipalUser, someone, "view"); err != nil {
				t.Fatalf("%s: admin manage ACL: %v", typ, err)
			}
		}
	})
}

// TestIsolationBoundaries: an isolated item, folder or file ignores rights
// from above (for itself and its descendants) and keeps the copied ones.
func TestIsolationBoundaries(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		w := buildWorld(f)
		reader, editor, late := f.user("reader"), f.user("editor"), f.user("late")
		g := f.group("staff", "domain_linked", reader)
		f.grant(w.top, acl.PrincipalGroup, g, acl.View)
		f.grant(w.targets[acl.List], acl.PrincipalUser, editor.UserID, acl.Edit)
		f.grant(w.targets[acl.Library], acl.PrincipalUser, editor.UserID, acl.Edit)

		item, att, file := w.targets[acl.ListItem], w.targets[acl.Attachment], w.targets[acl.File]
		folder := acl.Ref{Type: acl.File, ID: parentOf(t, f, file)} // the file's folder

		for _, r := range []acl.Ref{item, folder} {
			if err := f.e.SetInherits(f.ctx, r, false); err != nil {
				t.Fatal(err)
			}
		}
		// rights granted above after isolation do not reach through the boundary
		f.grant(w.top, acl.PrincipalUser, late.UserID, acl.Delete)
		for _, c := range []struct {
			who  *auth.Principal
			ref  acl.Ref
			want acl.Level
		}{
			{reader, item, acl.View}, {reader, att, acl.View}, {reader, file, acl.View}, // copied at isolation
			{editor, item, acl.Edit}, {editor, att, acl.Edit}, {editor, file, acl.Edit},
			{late, item, acl.None}, {late, att, acl.None}, {late, file, acl.None}, {late, folder, acl.None},
			{late, w.targets[acl.List], acl.Delete}, {late, w.targets[acl.Library], acl.Delete},
		} {
			if got := f.level(c.who, c.ref); got != c.want {
				t.Fatalf("%s on %s: %v, want %v", c.who.Login, c.ref.Type, got, c.want)
			}
		}
		// listing: late sees the list but the isolated item is in deny
		v, err := f.e.Visibility(f.ctx, late, acl.ListItem, w.targets[acl.List], acl.Children)
		if err != nil || v.Level() != acl.Delete || len(v.Hidden()) != 1 || v.Hidden()[0] != item.ID || v.Sees(item.ID) {
			t.Fatalf("visibility: %+v %v", v, err)
		}
		// removing the reader from the directory group drops the copied group right
		if _, err := f.db.W(f.ctx).ExecContext(f.ctx, "DELETE FROM group_members WHERE user_id = ?", reader.UserID); err != nil {
			t.Fatal(err)
		}
		f.e.Invalidate(f.ctx)
		if got := f.level(reader, item); got != acl.None {
			t.Fatalf("reader after leaving the group: %v", got)
		}
		// restoring inheritance deletes the unique records and lets rights from above in
		if err := f.e.SetInherits(f.ctx, item, true); err != nil {
			t.Fatal(err)
		}
		if got := f.level(late, att); got != acl.Delete {
			t.Fatalf("late after restore: %v", got)
		}
		if es, _ := f.e.Entries(f.ctx, item); len(es) != 0 {
			t.Fatalf("unique records left: %v", es)
		}
	})
}

func parentOf(t *testing.T, f *fixture, r acl.Ref) string {
	t.Helper()
	var p string
	if err := f.db.Q(f.ctx).QueryRowContext(f.ctx, "SELECT parent_id FROM acl_objects WHERE id = ?", r.ID).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}
