package test

import (
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

func TestAccessNodes(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		bob, _ := s.CreateUser(t, "bob", false)

		s.Anon().Do(t, "GET", "/nodes", nil).Expect(t, 401, "UNAUTHORIZED")
		s.Anon().Do(t, "POST", "/nodes", map[string]any{"slug": "x", "title": "X"}).Expect(t, 401, "UNAUTHORIZED")

		root := mkNode(t, admin, "", "intranet")
		// only administrators create root nodes
		alice.Do(t, "POST", "/nodes", map[string]any{"slug": "mine", "title": "Mine"}).Expect(t, 403, "FORBIDDEN")

		// validation
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"slug": "Bad Slug", "title": "X"}, "slug"},
			{map[string]any{"slug": "-x", "title": "X"}, "slug"},
			{map[string]any{"slug": "lists", "title": "X"}, "slug"},
			{map[string]any{"slug": "ok", "title": "  "}, "title"},
			{map[string]any{"slug": "ok", "title": "X", "parentId": "nope"}, "parentId"},
			{map[string]any{"slug": "ok", "title": "X", "unknown": 1}, ""},
		} {
			r := admin.Do(t, "POST", "/nodes", c.body).Expect(t, 400, "VALIDATION_ERROR")
			if c.field != "" && r.Error.Details["field"] != c.field {
				t.Fatalf("%v: field %v", c.body, r.Error.Details)
			}
		}
		admin.Do(t, "POST", "/nodes", "{bad json").Expect(t, 400, "VALIDATION_ERROR")

		// duplicate sibling slug: 409; same slug elsewhere: fine
		admin.Do(t, "POST", "/nodes", map[string]any{"slug": "intranet", "title": "Again"}).Expect(t, 409, "CONFLICT")
		hr := mkNode(t, admin, root, "hr")
		mkNode(t, admin, hr, "intranet")

		// alice cannot see anything yet: existing nodes answer 403, missing ones 404
		alice.Do(t, "GET", "/nodes/"+hr, nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "GET", "/nodes/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		var list []map[string]any
		alice.Do(t, "GET", "/nodes", nil).Expect(t, 200).Into(t, &list)
		if len(list) != 0 {
			t.Fatalf("alice sees %v", list)
		}
		// child creation needs edit on the parent: 403 (invisible or view only), 404 when missing
		alice.Do(t, "POST", "/nodes", map[string]any{"parentId": hr, "slug": "team", "title": "Team"}).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "POST", "/nodes", map[string]any{"parentId": uuid.NewString(), "slug": "team", "title": "Team"}).Expect(t, 404, "NOT_FOUND")
		grant(t, s, "node", root, "user", aliceID, "view")
		alice.Do(t, "GET", "/nodes/"+hr, nil).Expect(t, 200)
		alice.Do(t, "GET", "/nodes", nil).Expect(t, 200).Into(t, &list)
		if len(list) != 3 {
			t.Fatalf("alice sees %d nodes", len(list))
		}
		alice.Do(t, "POST", "/nodes", map[string]any{"parentId": hr, "slug": "team", "title": "Team"}).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "PATCH", "/nodes/"+hr, map[string]any{"title": "HR"}).Expect(t, 403, "FORBIDDEN")
		grant(t, s, "node", hr, "user", aliceID, "edit")
		team := alice.Do(t, "POST", "/nodes", map[string]any{"parentId": hr, "slug": "team", "title": "Team", "sortOrder": 2}).Expect(t, 201).Map(t)
		if team["parentId"] != hr || team["slug"] != "team" || team["sortOrder"].(float64) != 2 || team["createdAt"] == nil {
			t.Fatalf("node record %v", team)
		}
		teamID := team["id"].(string)
		got := alice.Do(t, "PATCH", "/nodes/"+hr, map[string]any{"title": "Human resources", "description": "People"}).Expect(t, 200).Map(t)
		if got["title"] != "Human resources" || got["description"] != "People" || got["slug"] != "hr" {
			t.Fatalf("patched %v", got)
		}
		bob.Do(t, "GET", "/nodes/"+teamID, nil).Expect(t, 403, "FORBIDDEN")

		// moves: not under itself or a descendant; root only for admins
		admin.Do(t, "PATCH", "/nodes/"+hr, map[string]any{"parentId": teamID}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "PATCH", "/nodes/"+hr, map[string]any{"parentId": hr}).Expect(t, 400, "VALIDATION_ERROR")
		alice.Do(t, "PATCH", "/nodes/"+teamID, map[string]any{"parentId": nil}).Expect(t, 403, "FORBIDDEN")
		moved := admin.Do(t, "PATCH", "/nodes/"+teamID, map[string]any{"parentId": nil}).Expect(t, 200).Map(t)
		if moved["parentId"] != nil {
			t.Fatalf("moved %v", moved)
		}
		// after the move alice loses the inherited rights of hr
		alice.Do(t, "GET", "/nodes/"+teamID, nil).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "PATCH", "/nodes/"+teamID, map[string]any{"parentId": hr}).Expect(t, 200)
		alice.Do(t, "GET", "/nodes/"+teamID, nil).Expect(t, 200)
		// slug clash on rename
		mkNode(t, admin, hr, "payroll")
		admin.Do(t, "PATCH", "/nodes/"+teamID, map[string]any{"slug": "payroll"}).Expect(t, 409, "CONFLICT")

		// delete: children 409, delete right needed, then 404
		admin.Do(t, "DELETE", "/nodes/"+hr, nil).Expect(t, 409, "CONFLICT")
		alice.Do(t, "DELETE", "/nodes/"+teamID, nil).Expect(t, 403, "FORBIDDEN")
		grant(t, s, "node", teamID, "user", aliceID, "delete")
		alice.Do(t, "DELETE", "/nodes/"+teamID, nil).Expect(t, 200)
		admin.Do(t, "GET", "/nodes/"+teamID, nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "GET", "/nodes/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")
	})
}
