package test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestSearchFollowsRenames: items and files hold the names of the people
// their person fields name in their search text; renaming a user or a group
// re-indexes them (a job queued by the rename), so the new name finds them
// and the old one no longer does.
func TestSearchFollowsRenames(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		_, userID := s.CreateUser(t, "renamee", false)
		admin.Do(t, "PATCH", "/admin/users/"+userID, map[string]any{"displayName": "Wombatson"}).Expect(t, 200)
		groupID := admin.Do(t, "POST", "/groups", map[string]any{"name": "Platypus crew"}).Expect(t, 201).Map(t)["id"].(string)

		f := newListFixture(t, s, "owners")
		who := f.addField(t, "who", "person", nil)
		f.create(t, admin, map[string]any{f.fields["title"]: "Quarterly audit", who: []map[string]any{{"principalType": "user", "id": userID}}})
		f.create(t, admin, map[string]any{f.fields["title"]: "Harbour lease", who: []map[string]any{{"principalType": "group", "id": groupID}}})
		f.create(t, admin, map[string]any{f.fields["title"]: "Unrelated memo"})

		lf := newLibFixture(t, s, "owned-files")
		owner := admin.Do(t, "POST", lf.path("/fields"), map[string]any{"title": "Owner", "fieldType": "person"}).Expect(t, 201).Map(t)["id"].(string)
		file := lf.put(t, admin, "", "ledger.txt", []byte("x"), 201)
		admin.Do(t, "PATCH", lf.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{owner: []map[string]any{{"principalType": "user", "id": userID}}}}).Expect(t, 200)

		titles := func(q string) []string {
			hits, _ := searchHits(t, admin, q)
			return hitTitles(hits)
		}
		// the file's text is indexed by a job: wait for it, as for the renames
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			got := titles("Wombatson")
			if len(got) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("before the rename: %v", got)
			}
		}
		if got := titles("Platypus"); len(got) != 1 || got[0] != "item:Harbour lease" {
			t.Fatalf("group before the rename: %v", got)
		}

		admin.Do(t, "PATCH", "/admin/users/"+userID, map[string]any{"displayName": "Quokkafield"}).Expect(t, 200)
		// the group addressed in upper case: the job still gets the stored id
		admin.Do(t, "PATCH", "/groups/"+strings.ToUpper(groupID), map[string]any{"name": "Echidna crew"}).Expect(t, 200)
		// unrelated changes queue nothing to re-index
		admin.Do(t, "PATCH", "/admin/users/"+userID, map[string]any{"email": "renamee@example.org"}).Expect(t, 200)

		deadline := time.Now().Add(15 * time.Second)
		for {
			user, group := titles("Quokkafield"), titles("Echidna")
			old := append(titles("Wombatson"), titles("Platypus")...)
			if len(user) == 2 && len(group) == 1 && len(old) == 0 {
				if !slices.Contains(user, "item:Quarterly audit") || !slices.Contains(user, "file:ledger.txt") || group[0] != "item:Harbour lease" {
					t.Fatalf("after the renames: user %v, group %v", user, group)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("15 s after the renames: new user name %v, new group name %v, old names %v", user, group, old)
			}
			time.Sleep(100 * time.Millisecond)
		}
		var jobs []map[string]any
		admin.Do(t, "GET", "/jobs?type=search.reindexSubject", nil).Expect(t, 200).Into(t, &jobs)
		if len(jobs) != 3 { // Wombatson, Quokkafield, Echidna crew; none for the e-mail
			t.Fatalf("re-index jobs: %d, want one per rename (%v)", len(jobs), jobs)
		}
	})
}
