package test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

func TestAccessPermissions(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		bob, bobID := s.CreateUser(t, "bob", false)
		g := admin.Do(t, "POST", "/groups", map[string]any{"name": "Team"}).Expect(t, 201).Map(t)["id"].(string)

		root := mkNode(t, admin, "", "root")
		mid := mkNode(t, admin, root, "mid")
		leaf := mkNode(t, admin, mid, "leaf")
		q := "?resourceType=node&resourceId=" + leaf

		s.Anon().Do(t, "GET", "/permissions"+q, nil).Expect(t, 401, "UNAUTHORIZED")
		s.Anon().Do(t, "GET", "/permissions/check"+q, nil).Expect(t, 401, "UNAUTHORIZED")

		// check never answers 403: no access is a null level
		chk := alice.Do(t, "GET", "/permissions/check"+q, nil).Expect(t, 200).Map(t)
		if chk["permissionLevel"] != nil || chk["canView"] != false || chk["canDelete"] != false {
			t.Fatalf("no access: %v", chk)
		}
		unknown := alice.Do(t, "GET", "/permissions/check?resourceType=list&resourceId="+uuid.NewString(), nil).Expect(t, 200).Map(t)
		if unknown["permissionLevel"] != nil {
			t.Fatalf("unknown resource: %v", unknown)
		}
		chk = admin.Do(t, "GET", "/permissions/check"+q, nil).Expect(t, 200).Map(t)
		if chk["permissionLevel"] != "delete" || chk["canDelete"] != true {
			t.Fatalf("admin: %v", chk)
		}

		// input errors
		alice.Do(t, "GET", "/permissions/check?resourceType=bogus&resourceId="+leaf, nil).Expect(t, 400, "VALIDATION_ERROR")
		alice.Do(t, "GET", "/permissions/check?resourceType=node", nil).Expect(t, 400, "VALIDATION_ERROR")
		r := alice.Do(t, "GET", "/permissions/check?resourceType=list_item&resourceId=12", nil).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != "listId" {
			t.Fatalf("numeric item without listId: %v", r.Error.Details)
		}
		r = alice.Do(t, "GET", "/permissions?resourceType=file&resourceId=7", nil).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != "libraryId" {
			t.Fatalf("numeric file without libraryId: %v", r.Error.Details)
		}
		admin.Do(t, "GET", "/permissions?resourceType=node&resourceId=12", nil).Expect(t, 400, "VALIDATION_ERROR")
		// a numeric item of an unknown list: not found (no leak), check gives null
		admin.Do(t, "GET", "/permissions?resourceType=list_item&resourceId=12&listId="+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		if l := alice.Do(t, "GET", "/permissions/check?resourceType=list_item&resourceId=12&listId="+uuid.NewString(), nil).Expect(t, 200).Map(t)["permissionLevel"]; l != nil {
			t.Fatalf("unknown item: %v", l)
		}
		for _, body := range []map[string]any{
			{"resourceType": "node", "resourceId": leaf, "principalType": "robot", "principalId": aliceID, "permissionLevel": "view"},
			{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": aliceID, "permissionLevel": "owner"},
			{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": "nope", "permissionLevel": "view"},
			{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": uuid.NewString(), "permissionLevel": "view"},
			{"resourceType": "node", "resourceId": leaf, "principalType": "group", "principalId": aliceID, "permissionLevel": "view"},
		} {
			admin.Do(t, "POST", "/permissions", body).Expect(t, 400, "VALIDATION_ERROR")
		}
		admin.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": uuid.NewString(), "principalType": "user", "principalId": aliceID, "permissionLevel": "view"}).Expect(t, 404, "NOT_FOUND")
		// a record's type must match the resource
		admin.Do(t, "POST", "/permissions", map[string]any{"resourceType": "list", "resourceId": leaf, "principalType": "user", "principalId": aliceID, "permissionLevel": "view"}).Expect(t, 404, "NOT_FOUND")

		// inheritance from three levels up, via a group
		admin.Do(t, "POST", "/groups/"+g+"/members", map[string]any{"userId": aliceID}).Expect(t, 200)
		grant(t, s, "node", root, "group", g, "view")
		if l := levelOf(t, alice, "node", leaf); l != "view" {
			t.Fatalf("inherited via group: %v", l)
		}
		// reading records needs edit: 403 whether the caller sees the node or
		// not (it exists); 404 for a node that does not exist
		alice.Do(t, "GET", "/permissions"+q, nil).Expect(t, 403, "FORBIDDEN")
		bob.Do(t, "GET", "/permissions"+q, nil).Expect(t, 403, "FORBIDDEN")
		bob.Do(t, "GET", "/permissions?resourceType=node&resourceId="+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		alice.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": bobID, "permissionLevel": "view"}).Expect(t, 403, "FORBIDDEN")

		// edit on a node lets alice manage its records, but not grant above her own level
		grant(t, s, "node", mid, "user", aliceID, "edit")
		alice.Do(t, "GET", "/permissions"+q, nil).Expect(t, 200)
		alice.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": bobID, "permissionLevel": "delete"}).Expect(t, 403, "FORBIDDEN")
		rec := alice.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": bobID, "permissionLevel": "view"}).Expect(t, 200).Map(t)
		if rec["principalName"] != "Bob" || rec["permissionLevel"] != "view" || rec["principalType"] != "user" || rec["principalId"] != bobID {
			t.Fatalf("record %v", rec)
		}
		// upsert: the same principal again changes the level, same record
		rec2 := alice.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": leaf, "principalType": "user", "principalId": bobID, "permissionLevel": "add"}).Expect(t, 200).Map(t)
		if rec2["id"] != rec["id"] || rec2["permissionLevel"] != "add" {
			t.Fatalf("upsert %v vs %v", rec2, rec)
		}
		if l := levelOf(t, bob, "node", leaf); l != "add" {
			t.Fatalf("bob: %v", l)
		}
		// explicit records only: the group's record on root is not listed for leaf
		var recs []map[string]any
		alice.Do(t, "GET", "/permissions"+q, nil).Expect(t, 200).Into(t, &recs)
		if len(recs) != 1 || recs[0]["id"] != rec["id"] {
			t.Fatalf("records of leaf: %v", recs)
		}
		admin.Do(t, "GET", "/permissions?resourceType=node&resourceId="+root, nil).Expect(t, 200).Into(t, &recs)
		if len(recs) != 1 || recs[0]["principalName"] != "Team" || recs[0]["principalType"] != "group" {
			t.Fatalf("records of root: %v", recs)
		}

		// delete: bob (add only) may not; alice may; unknown id 404
		bob.Do(t, "DELETE", "/permissions/"+rec["id"].(string), nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "DELETE", "/permissions/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
		alice.Do(t, "DELETE", "/permissions/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")
		alice.Do(t, "DELETE", "/permissions/"+rec["id"].(string), nil).Expect(t, 200)
		if l := levelOf(t, bob, "node", leaf); l != nil {
			t.Fatalf("bob after delete: %v", l)
		}
		// records on a resource alice cannot see: 403 (the record exists)
		other := mkNode(t, admin, "", "other")
		otherRec := grant(t, s, "node", other, "user", bobID, "view")
		alice.Do(t, "DELETE", "/permissions/"+otherRec, nil).Expect(t, 403, "FORBIDDEN")
	})
}

func TestAccessUsersPicker(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		_, bobID := s.CreateUser(t, "bob", false)
		_, carolID := s.CreateUser(t, "carol", false)

		s.Anon().Do(t, "GET", "/users?q=a", nil).Expect(t, 401, "UNAUTHORIZED")
		alice.Do(t, "GET", "/users?q=a", nil).Expect(t, 403, "FORBIDDEN")
		var us []map[string]any
		r := admin.Do(t, "GET", "/users?q=BOB", nil).Expect(t, 200)
		r.Into(t, &us)
		if len(us) != 1 || us[0]["id"] != bobID || r.Meta["total"].(float64) != 1 {
			t.Fatalf("picker %v %v", us, r.Meta)
		}

		// profile of a user without directory data
		p := alice.Do(t, "GET", "/users/"+bobID+"/profile", nil).Expect(t, 200).Map(t)
		if p["display_name"] != "Bob" || p["email"] != "bob@example.com" || p["has_avatar"] != false || p["manager_user_id"] != nil {
			t.Fatalf("profile %v", p)
		}
		if cf := p["card_fields"].(map[string]any); cf["email"] != "bob@example.com" || len(cf) != 1 {
			t.Fatalf("card fields %v", cf)
		}
		alice.Do(t, "GET", "/users/"+uuid.NewString()+"/profile", nil).Expect(t, 404, "NOT_FOUND")
		alice.Do(t, "GET", "/users/nope/profile", nil).Expect(t, 400, "VALIDATION_ERROR")
		alice.Do(t, "GET", "/users/"+bobID+"/avatar", nil).Expect(t, 404, "NOT_FOUND")

		// org chart from directory data: carol manages bob, bob manages alice
		db := openServerDB(t, s)
		ctx := context.Background()
		for _, pair := range [][2]string{{bobID, carolID}, {aliceID, bobID}} {
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET manager_user_id = ?, directory_attrs = ? WHERE id = ?", pair[1], `{"title":"Engineer","department":"R&D"}`, pair[0]); err != nil {
				t.Fatal(err)
			}
		}
		var chain struct{ Chain []map[string]any }
		alice.Do(t, "GET", "/users/"+aliceID+"/org-chain", nil).Expect(t, 200).Into(t, &chain)
		if len(chain.Chain) != 3 || chain.Chain[0]["id"] != carolID || chain.Chain[2]["id"] != aliceID || chain.Chain[0]["has_children"] != true || chain.Chain[2]["has_children"] != false {
			t.Fatalf("chain %v", chain)
		}
		var kids struct{ Children []map[string]any }
		alice.Do(t, "GET", "/users/"+carolID+"/org-children", nil).Expect(t, 200).Into(t, &kids)
		if len(kids.Children) != 1 || kids.Children[0]["id"] != bobID || kids.Children[0]["title"] != "Engineer" || kids.Children[0]["has_children"] != true {
			t.Fatalf("children %v", kids)
		}
		alice.Do(t, "GET", "/users/"+aliceID+"/org-children", nil).Expect(t, 200).Into(t, &kids)
		if len(kids.Children) != 0 {
			t.Fatalf("leaf children %v", kids)
		}
		p = alice.Do(t, "GET", "/users/"+bobID+"/profile", nil).Expect(t, 200).Map(t)
		if p["manager_user_id"] != carolID || p["card_fields"].(map[string]any)["department"] != "R&D" {
			t.Fatalf("profile with directory data %v", p)
		}
		alice.Do(t, "GET", "/users/"+uuid.NewString()+"/org-chain", nil).Expect(t, 404, "NOT_FOUND")
	})
}
