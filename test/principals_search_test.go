package test

import (
	"sort"
	"testing"

	"coreportal/test/kit"
)

// GET /principals/search: any signed-in user finds active users and groups
// by name with picker fields only; short q, bad types and limits are 400.
func TestPrincipalSearch(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		owner, _ := s.CreateUser(t, "pickowner", false)
		_, gone := s.CreateUser(t, "pickgone", false)
		s.CreateUser(t, "pickfound", false)
		adm.Do(t, "PATCH", "/admin/users/"+gone, map[string]any{"isActive": false}).Expect(t, 200)
		adm.Do(t, "POST", "/groups", map[string]any{"name": "Pickers team", "description": "people who pick"}).Expect(t, 201)

		var got []map[string]any
		owner.Do(t, "GET", "/principals/search?q=pick", nil).Expect(t, 200).Into(t, &got)
		var names []string
		for _, sub := range got {
			names = append(names, sub["principalType"].(string)+":"+sub["display"].(string))
			for k := range sub {
				switch k {
				case "principalType", "id", "display", "subtitle", "email":
				default:
					t.Errorf("subject %v has field %s", sub, k)
				}
			}
		}
		sort.Strings(names)
		want := []string{"group:Pickers team", "user:Pickfound", "user:Pickowner"}
		if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
			t.Fatalf("found %v, want %v (no disabled user)", names, want)
		}
		owner.Do(t, "GET", "/principals/search?q=pick&types=group", nil).Expect(t, 200).Into(t, &got)
		if len(got) != 1 || got[0]["principalType"] != "group" || got[0]["subtitle"] != "people who pick" {
			t.Fatalf("groups only: %v", got)
		}
		owner.Do(t, "GET", "/principals/search?q=PICKF&types=user&limit=1", nil).Expect(t, 200).Into(t, &got)
		if len(got) != 1 || got[0]["subtitle"] != "pickfound" || got[0]["email"] != "pickfound@example.com" {
			t.Fatalf("user by login: %v", got)
		}
		for _, bad := range []struct{ query, field string }{
			{"", "q"}, {"q=p", "q"}, {"q=%20%20p%20", "q"}, {"q=pick&types=role", "types"},
			{"q=pick&limit=21", "limit"}, {"q=pick&limit=-1", "limit"},
		} {
			r := owner.Do(t, "GET", "/principals/search?"+bad.query, nil).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != bad.field {
				t.Errorf("%s: details %v", bad.query, r.Error.Details)
			}
		}
		s.Anon().Do(t, "GET", "/principals/search?q=pick", nil).Expect(t, 401)
	})
}
