package test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// TestAccessSecurity covers the findings of the access security review:
// directory upserts never take over local accounts, blank picker searches are
// the admin listing, non-canonical UUIDs in bodies never reach SQL, sortOrder
// stays within int4, and menu links never reveal nodes the editor cannot view.
func TestAccessSecurity(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		ctx := context.Background()
		db := openServerDB(t, s)

		gid := admin.Do(t, "POST", "/groups", map[string]any{"name": "Staff"}).Expect(t, 201).Map(t)["id"].(string)
		members := "/groups/" + gid + "/members"

		// 1. a directory identity never takes over a local account
		r := admin.Do(t, "POST", members, map[string]any{"externalId": "S-1-5-21-evil", "login": "admin", "displayName": "Evil", "email": "evil@example.com"}).
			Expect(t, 409, "CONFLICT")
		if r.Error.Details["field"] != "login" || !strings.Contains(r.Error.Message, "local") {
			t.Fatalf("conflict details %v %q", r.Error.Details, r.Error.Message)
		}
		admin.Do(t, "POST", members, map[string]any{"externalId": "S-1-5-21-alice", "login": "ALICE", "displayName": "Evil"}).Expect(t, 409, "CONFLICT")
		var ext *string
		var display string
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT external_id, display_name FROM users WHERE login_norm = ?", "admin").Scan(&ext, &display); err != nil {
			t.Fatal(err)
		}
		if ext != nil || display == "Evil" {
			t.Fatalf("admin card rewritten: %v %q", ext, display)
		}
		// a domain account without a directory id yet is linked
		_, domID := s.CreateUser(t, "dave", false)
		if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET auth_source = 'domain' WHERE id = ?", domID); err != nil {
			t.Fatal(err)
		}
		g := admin.Do(t, "POST", members, map[string]any{"externalId": "S-1-5-21-dave", "login": "dave", "displayName": "Dave D"}).Expect(t, 200).Map(t)
		if len(g["members"].([]any)) != 1 || g["members"].([]any)[0].(map[string]any)["id"] != domID {
			t.Fatalf("domain user linked %v", g)
		}

		// 5. a blank q is the admin listing
		alice.Do(t, "GET", "/groups?q=%20", nil).Expect(t, 403, "FORBIDDEN")
		alice.Do(t, "GET", "/groups?q=%20%09", nil).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "GET", "/groups?q=%20", nil).Expect(t, 200)

		// 2. ids in bodies: upper case is canonicalised, other spellings are 400
		root := mkNode(t, admin, "", "sec-root")
		urn := "urn:uuid:" + root
		for _, bad := range []string{urn, "{" + root + "}", strings.ReplaceAll(root, "-", "")} {
			r := admin.Do(t, "POST", "/nodes", map[string]any{"slug": "x", "title": "x", "parentId": bad}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "parentId" {
				t.Fatalf("field %v", r.Error.Details)
			}
		}
		child := admin.Do(t, "POST", "/nodes", map[string]any{"slug": "upper", "title": "Upper", "parentId": strings.ToUpper(root)}).Expect(t, 201).Map(t)
		if child["parentId"] != root {
			t.Fatalf("parentId stored as %v", child["parentId"])
		}
		other := mkNode(t, admin, "", "sec-other")
		admin.Do(t, "PATCH", "/nodes/"+child["id"].(string), map[string]any{"parentId": urn}).Expect(t, 400, "VALIDATION_ERROR")
		if got := admin.Do(t, "PATCH", "/nodes/"+child["id"].(string), map[string]any{"parentId": strings.ToUpper(other)}).Expect(t, 200).Map(t); got["parentId"] != other {
			t.Fatalf("moved under %v", got["parentId"])
		}
		admin.Do(t, "POST", members, map[string]any{"userId": "urn:uuid:" + aliceID}).Expect(t, 400, "VALIDATION_ERROR")
		if g := admin.Do(t, "POST", members, map[string]any{"userId": strings.ToUpper(aliceID)}).Expect(t, 200).Map(t); g["members_count"].(float64) != 2 {
			t.Fatalf("upper-case userId %v", g)
		}
		head := admin.Do(t, "POST", "/nodes/"+root+"/menu/items", map[string]any{"title": "Head"}).Expect(t, 201).Map(t)["id"].(string)
		admin.Do(t, "POST", "/nodes/"+root+"/menu/items", map[string]any{"title": "Sub", "parentItemId": "urn:uuid:" + head}).Expect(t, 400, "VALIDATION_ERROR")
		if it := admin.Do(t, "POST", "/nodes/"+root+"/menu/items", map[string]any{"title": "Sub", "parentItemId": strings.ToUpper(head)}).Expect(t, 201).Map(t); it["parentItemId"] != head {
			t.Fatalf("parentItemId %v", it["parentItemId"])
		}
		admin.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": "urn:uuid:" + root,
			"principalType": "user", "principalId": aliceID, "permissionLevel": "view"}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": root,
			"principalType": "user", "principalId": "{" + aliceID + "}", "permissionLevel": "view"}).Expect(t, 400, "VALIDATION_ERROR")

		// 3. sortOrder fits PostgreSQL int4
		admin.Do(t, "POST", "/nodes", map[string]any{"slug": "big", "title": "Big", "sortOrder": 3000000000}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", "/nodes", map[string]any{"slug": "small", "title": "Small", "sortOrder": -3000000000}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "PATCH", "/nodes/"+other, map[string]any{"sortOrder": 3000000000}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "POST", "/nodes", map[string]any{"slug": "max", "title": "Max", "sortOrder": 2147483647}).Expect(t, 201)

		// 4. menu links resolve as the editor: a secret sibling is like a missing node
		pub := mkNode(t, admin, "", "pub")
		secret := mkNode(t, admin, "", "secret")
		grant(t, s, "node", pub, "user", aliceID, "edit")
		items := "/nodes/" + pub + "/menu/items"
		for _, link := range []string{"/secret", "/missing"} {
			it := alice.Do(t, "POST", items, map[string]any{"title": "T", "link": link}).Expect(t, 201).Map(t)
			if it["link"] != link || it["resourceId"] != nil || it["resourceType"] != nil {
				t.Fatalf("link %s bound as %v", link, it)
			}
			id := it["id"].(string)
			it = alice.Do(t, "PATCH", items+"/"+id, map[string]any{"link": link}).Expect(t, 200).Map(t)
			if it["link"] != link || it["resourceId"] != nil {
				t.Fatalf("patched link %s bound as %v", link, it)
			}
		}
		for _, link := range []string{"#/nodes/" + secret, "#/nodes/" + uuid.NewString()} {
			r := alice.Do(t, "POST", items, map[string]any{"title": "T", "link": link}).Expect(t, 400, "VALIDATION_ERROR")
			if strings.Contains(r.Error.Message, "secret") || strings.Contains(string(r.Raw), "/secret") {
				t.Fatalf("hash link reveals the path: %s", r.Raw)
			}
		}
		// the administrator binds the same link; alice's editor view does not show the binding
		bound := admin.Do(t, "POST", items, map[string]any{"title": "Secret", "link": "/secret"}).Expect(t, 201).Map(t)
		if bound["resourceId"] != secret {
			t.Fatalf("admin binding %v", bound)
		}
		var mg struct{ Items []map[string]any }
		alice.Do(t, "GET", "/nodes/"+pub+"/menu/manage", nil).Expect(t, 200).Into(t, &mg)
		for _, it := range mg.Items {
			if it["resourceId"] == secret {
				t.Fatalf("manage reveals the secret node: %v", it)
			}
		}
		if it := alice.Do(t, "PATCH", items+"/"+bound["id"].(string), map[string]any{"title": "Renamed"}).Expect(t, 200).Map(t); it["resourceId"] != nil {
			t.Fatalf("patch answer reveals the binding: %v", it)
		}
		if got := alice.Do(t, "POST", items+"/"+bound["id"].(string)+"/move", map[string]any{"direction": "up"}).Expect(t, 200).Raw; strings.Contains(string(got), secret) {
			t.Fatalf("move answer reveals the secret node: %s", got)
		}
		// the binding survives alice's rename: the admin still sees it bound
		admin.Do(t, "GET", "/nodes/"+pub+"/menu/manage", nil).Expect(t, 200).Into(t, &mg)
		found := false
		for _, it := range mg.Items {
			found = found || it["resourceId"] == secret
		}
		if !found {
			t.Fatalf("binding lost: %v", mg.Items)
		}
	})
}
