package routes_test

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
	"coreportal/internal/routes"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestContentRoutes: lists, libraries, pages and surveys resolve through the
// resolvers their packages register, with the caller's rights applied.
func TestContentRoutes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		ns := nodes.New(db, engine)
		svc := routes.New(ns, engine)
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		a, err := ns.Create(ctx, admin, nodes.NewNode{Slug: "a", Title: "A"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ns.Create(ctx, admin, nodes.NewNode{ParentID: a.ID, Slug: "b", Title: "B"})
		if err != nil {
			t.Fatal(err)
		}
		type res struct {
			kind, node, slug string
			t                acl.Type
		}
		byID := map[string]res{}
		for _, r := range []res{{"list", b.ID, "tasks", acl.List}, {"library", b.ID, "docs", acl.Library}, {"page", a.ID, "welcome", acl.Page}, {"survey", b.ID, "poll", acl.Survey}} {
			id := uuid.NewString()
			if err := engine.Register(ctx, acl.Ref{Type: r.t, ID: id}, &acl.Ref{Type: acl.Node, ID: r.node}); err != nil {
				t.Fatal(err)
			}
			byID[id] = r
		}
		for _, kind := range []string{"list", "library", "page", "survey"} {
			svc.RegisterResolver(kind, func(_ context.Context, nodeID, slug string) (string, error) {
				for id, r := range byID {
					if r.kind == kind && r.node == nodeID && r.slug == slug {
						return id, nil
					}
				}
				return "", fault.NotFound(kind)
			})
			svc.RegisterSlugger(kind, func(_ context.Context, id string) (string, string, error) {
				if r, ok := byID[id]; ok && r.kind == kind {
					return r.node, r.slug, nil
				}
				return "", "", fault.NotFound(kind)
			})
		}
		idOf := func(kind string) string {
			for id, r := range byID {
				if r.kind == kind {
					return id
				}
			}
			return ""
		}
		for _, c := range []struct {
			path, typ, key, id string
		}{
			{"/a/b/lists/tasks", "list", "listId", idOf("list")},
			{"/a/b/libraries/docs", "library", "libraryId", idOf("library")},
			{"/a/pages/welcome", "page", "pageId", idOf("page")},
			{"/a/b/surveys/poll", "survey", "surveyId", idOf("survey")},
			{"/a/b/surveys/poll/edit", "survey_edit", "surveyId", idOf("survey")},
			{"/a/b/surveys/poll/results", "survey_results", "surveyId", idOf("survey")},
			{"/a/b/surveys/poll/take", "survey_take", "surveyId", idOf("survey")},
		} {
			r, err := svc.Resolve(ctx, admin, c.path)
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			if r.Type != c.typ || r.ResourceID == nil || *r.ResourceID != c.id || r.Path != c.path {
				t.Fatalf("%s: %+v", c.path, r)
			}
		}
		for _, p := range []string{"/a/lists/tasks", "/a/b/lists/nope", "/a/b/lists", "/a/b/lists/tasks/extra", "/a/b/surveys/poll/delete"} {
			if _, err := svc.Resolve(ctx, admin, p); !fault.Is(err, fault.CodeNotFound) {
				t.Fatalf("%s: %v", p, err)
			}
		}
		// rights: a user who sees the node but not the list gets 404 for the list
		u := &auth.Principal{UserID: uuid.NewString()}
		if _, err := db.W(ctx).ExecContext(ctx, `INSERT INTO users (id, login, login_norm, created_at, updated_at) VALUES (?, 'u', 'u', `+db.Dialect.Now()+`, `+db.Dialect.Now()+`)`, u.UserID); err != nil {
			t.Fatal(err)
		}
		if err := engine.SetInherits(ctx, acl.Ref{Type: acl.List, ID: idOf("list")}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Grant(ctx, nodes.Ref(b.ID), acl.PrincipalUser, u.UserID, acl.View); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Resolve(ctx, u, "/a/b/libraries/docs"); err != nil {
			t.Fatalf("visible library: %v", err)
		}
		// the list was isolated before u had rights on b: no copied record for u
		if _, err := svc.Resolve(ctx, u, "/a/b/lists/tasks"); !fault.Is(err, fault.CodeForbidden) {
			t.Fatalf("isolated list: %v", err)
		}

		// canonical and legacy
		c, err := svc.Canonical(ctx, admin, "list", "", idOf("list"))
		if err != nil || c.Path != "/a/b/lists/tasks" || c.ListID == nil || *c.NodeID != b.ID {
			t.Fatalf("canonical %+v %v", c, err)
		}
		if _, err := svc.Canonical(ctx, admin, "list", a.ID, idOf("list")); !fault.Is(err, fault.CodeNotFound) {
			t.Fatalf("wrong node: %v", err)
		}
		for _, h := range []string{"#/nodes/" + b.ID + "/lists/" + idOf("list"), "#/list/" + idOf("list"), "/#!/node/" + b.ID + "/list/" + idOf("list")} {
			l, err := svc.Legacy(ctx, admin, h)
			if err != nil || l.Path != "/a/b/lists/tasks" {
				t.Fatalf("legacy %s: %+v %v", h, l, err)
			}
		}
		if l, err := svc.Legacy(ctx, admin, "#/pages/"+idOf("page")); err != nil || l.Path != "/a/pages/welcome" {
			t.Fatalf("legacy page: %+v %v", l, err)
		}
	})
}

// TestRouteIDsCanonical: ids written in upper case inside a route path resolve
// to the stored lower-case ids (they used to miss and answer 404).
func TestRouteIDsCanonical(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		engine := acl.New(db, bus.NewMemory())
		ns := nodes.New(db, engine)
		svc := routes.New(ns, engine)
		admin := &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}
		a, err := ns.Create(ctx, admin, nodes.NewNode{Slug: "a", Title: "A"})
		if err != nil {
			t.Fatal(err)
		}
		up := strings.ToUpper(a.ID)
		r, err := svc.Resolve(ctx, admin, "/nodes/"+up+"/edit")
		if err != nil || *r.NodeID != a.ID || r.Path != "/nodes/"+a.ID+"/edit" {
			t.Fatalf("edit route %+v %v", r, err)
		}
		r, err = svc.Resolve(ctx, admin, "/nodes/new?parentId="+up)
		if err != nil || *r.ParentID != a.ID {
			t.Fatalf("new route %+v %v", r, err)
		}
		g := uuid.NewString()
		r, err = svc.Resolve(ctx, admin, "/groups/"+strings.ToUpper(g))
		if err != nil || *r.GroupID != g {
			t.Fatalf("group route %+v %v", r, err)
		}
	})
}
