package test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/store"
	"coreportal/test/kit"
)

func TestAccessGroups(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		_, bobID := s.CreateUser(t, "bob", false)

		s.Anon().Do(t, "GET", "/groups", nil).Expect(t, 401, "UNAUTHORIZED")
		alice.Do(t, "GET", "/groups", nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "POST", "/groups", map[string]any{"name": "x"}).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "POST", "/groups", map[string]any{"name": " "}).Expect(t, 400, "VALIDATION_ERROR")

		g := admin.Do(t, "POST", "/groups", map[string]any{"name": "Editors", "description": "Content editors"}).Expect(t, 201).Map(t)
		if g["group_type"] != "portal" || g["members_count"].(float64) != 0 || len(g["members"].([]any)) != 0 {
			t.Fatalf("created %v", g)
		}
		gid := g["id"].(string)
		admin.Do(t, "POST", "/groups", map[string]any{"name": "Readers", "description": "Everyone who reads"}).Expect(t, 201)

		// picker search: any user, name or description, case-insensitive
		var found []map[string]any
		alice.Do(t, "GET", "/groups?q=CONTENT", nil).Expect(t, 200).Into(t, &found)
		if len(found) != 1 || found[0]["id"] != gid {
			t.Fatalf("search %v", found)
		}
		for i := 0; i < 22; i++ {
			admin.Do(t, "POST", "/groups", map[string]any{"name": "bulk group " + uuid.NewString()[:8]}).Expect(t, 201)
		}
		alice.Do(t, "GET", "/groups?q=bulk", nil).Expect(t, 200).Into(t, &found)
		if len(found) != 20 {
			t.Fatalf("picker limit: %d", len(found))
		}
		admin.Do(t, "GET", "/groups", nil).Expect(t, 200).Into(t, &found)
		if len(found) != 24 {
			t.Fatalf("all groups: %d", len(found))
		}

		// members
		admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": uuid.NewString()}).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "POST", "/groups/"+uuid.NewString()+"/members", map[string]any{"userId": aliceID}).Expect(t, 404, "NOT_FOUND")
		alice.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": aliceID}).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": aliceID}).Expect(t, 200)
		one := admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": aliceID}).Expect(t, 200).Map(t)
		if one["members_count"].(float64) != 1 {
			t.Fatalf("adding twice must be a no-op: %v", one)
		}
		// directory upsert creates a domain user once, then finds it by externalId
		d := admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"externalId": "S-1-5-21-9", "login": "dora", "displayName": "Dora D", "email": "dora@example.com"}).Expect(t, 200).Map(t)
		admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"externalId": "S-1-5-21-9", "login": "dora"}).Expect(t, 200)
		members := d["members"].([]any)
		if len(members) != 2 {
			t.Fatalf("members %v", members)
		}
		var dora map[string]any
		for _, m := range members {
			if mm := m.(map[string]any); mm["login"] == "dora" {
				dora = mm
			}
		}
		if dora == nil || dora["auth_source"] != "domain" || dora["display_name"] != "Dora D" {
			t.Fatalf("domain member %v", members)
		}
		got := admin.Do(t, "GET", "/groups/"+gid, nil).Expect(t, 200).Map(t)
		if got["members_count"].(float64) != 2 || len(got["members"].([]any)) != 2 {
			t.Fatalf("group %v", got)
		}
		admin.Do(t, "DELETE", "/groups/"+gid+"/members/"+bobID, nil).Expect(t, 404, "NOT_FOUND")

		// rename
		admin.Do(t, "PATCH", "/groups/"+gid, map[string]any{"name": ""}).Expect(t, 400, "VALIDATION_ERROR")
		if n := admin.Do(t, "PATCH", "/groups/"+gid, map[string]any{"name": "Writers"}).Expect(t, 200).Map(t)["name"]; n != "Writers" {
			t.Fatalf("renamed to %v", n)
		}

		// group rights apply to members; removing the member or the group drops them at once
		node := mkNode(t, admin, "", "docs")
		grant(t, s, "node", node, "group", gid, "edit")
		if l := levelOf(t, alice, "node", node); l != "edit" {
			t.Fatalf("alice via group: %v", l)
		}
		admin.Do(t, "DELETE", "/groups/"+gid+"/members/"+aliceID, nil).Expect(t, 200)
		if l := levelOf(t, alice, "node", node); l != nil {
			t.Fatalf("after removal: %v", l)
		}
		admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": aliceID}).Expect(t, 200)
		if l := levelOf(t, alice, "node", node); l != "edit" {
			t.Fatalf("after re-adding: %v", l)
		}
		admin.Do(t, "DELETE", "/groups/"+gid, nil).Expect(t, 200)
		if l := levelOf(t, alice, "node", node); l != nil {
			t.Fatalf("after group deletion: %v", l)
		}
		var recs []map[string]any
		admin.Do(t, "GET", "/permissions?resourceType=node&resourceId="+node, nil).Expect(t, 200).Into(t, &recs)
		if len(recs) != 0 {
			t.Fatalf("records of the deleted group remain: %v", recs)
		}
		admin.Do(t, "GET", "/groups/"+gid, nil).Expect(t, 404, "NOT_FOUND")
		admin.Do(t, "GET", "/groups/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")

		// domain-linked groups are managed by directory sync
		dom := insertDomainGroup(t, s, "Directory staff")
		for _, r := range []*kit.Response{
			admin.Do(t, "PATCH", "/groups/"+dom, map[string]any{"name": "x"}),
			admin.Do(t, "DELETE", "/groups/"+dom, nil),
			admin.Do(t, "POST", "/groups/"+dom+"/members", map[string]any{"userId": aliceID}),
			admin.Do(t, "DELETE", "/groups/"+dom+"/members/"+aliceID, nil),
		} {
			r.Expect(t, 400, "VALIDATION_ERROR")
			if !strings.Contains(r.Error.Message, "directory sync") {
				t.Fatalf("message %q", r.Error.Message)
			}
		}
	})
}

// insertDomainGroup writes a domain-linked group straight into the database,
// as directory sync (a later capability) would.
func insertDomainGroup(t *testing.T, s *kit.Server, name string) string {
	t.Helper()
	db := openServerDB(t, s)
	id := uuid.NewString()
	_, err := db.W(context.Background()).ExecContext(context.Background(),
		`INSERT INTO groups (id, name, description, group_type, external_id, search_text, created_at, updated_at) VALUES (?, ?, '', 'domain_linked', ?, ?, `+db.Dialect.Now()+`, `+db.Dialect.Now()+`)`,
		id, name, "CN="+name, name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func openServerDB(t *testing.T, s *kit.Server) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), s.DBURL, s.DataDir+"/core.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
