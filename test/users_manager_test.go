package test

import (
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// An administrator sets and clears a user's manager (local users have no
// directory to take it from); the org chart follows.
func TestUsersManagerByAdmin(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		alice, aliceID := s.CreateUser(t, "alice", false)
		_, bobID := s.CreateUser(t, "bob", false)

		alice.Do(t, "PATCH", "/admin/users/"+aliceID, map[string]any{"managerUserId": bobID}).Expect(t, 403, "FORBIDDEN")
		for _, bad := range []string{"nope", aliceID, uuid.NewString()} {
			r := admin.Do(t, "PATCH", "/admin/users/"+aliceID, map[string]any{"managerUserId": bad}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "managerUserId" {
				t.Fatalf("%s: %v", bad, r.Error)
			}
		}
		card := admin.Do(t, "PATCH", "/admin/users/"+aliceID, map[string]any{"managerUserId": bobID}).Expect(t, 200).Map(t)
		if card["manager_user_id"] != bobID {
			t.Fatalf("card %v", card)
		}
		p := alice.Do(t, "GET", "/users/"+aliceID+"/profile", nil).Expect(t, 200).Map(t)
		if p["manager_user_id"] != bobID {
			t.Fatalf("profile %v", p)
		}
		var kids struct{ Children []map[string]any }
		alice.Do(t, "GET", "/users/"+bobID+"/org-children", nil).Expect(t, 200).Into(t, &kids)
		if len(kids.Children) != 1 || kids.Children[0]["id"] != aliceID {
			t.Fatalf("children %v", kids)
		}
		// other fields of the PATCH leave the manager alone; "" clears it
		admin.Do(t, "PATCH", "/admin/users/"+aliceID, map[string]any{"displayName": "Alice A"}).Expect(t, 200)
		card = admin.Do(t, "PATCH", "/admin/users/"+aliceID, map[string]any{"managerUserId": ""}).Expect(t, 200).Map(t)
		if card["manager_user_id"] != nil {
			t.Fatalf("cleared %v", card)
		}
		var chain struct{ Chain []map[string]any }
		alice.Do(t, "GET", "/users/"+aliceID+"/org-chain", nil).Expect(t, 200).Into(t, &chain)
		if len(chain.Chain) != 1 {
			t.Fatalf("chain %v", chain)
		}
	})
}
