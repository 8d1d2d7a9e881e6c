package test

import (
	"fmt"
	"testing"

	"coreportal/test/kit"
)

func TestUserAdministration(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		me := adm.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
		adminID := me["id"].(string)

		var ids = map[string]string{}
		for _, u := range []struct {
			login string
			admin bool
		}{{"alice", true}, {"boris", false}, {"vera", false}} {
			r := adm.Do(t, "POST", "/admin/users", map[string]any{"login": u.login, "password": "password-" + u.login,
				"displayName": "Name " + u.login, "email": u.login + "@corp.example", "isCoreAdmin": u.admin}).Expect(t, 201)
			card := r.Map(t)
			if card["auth_source"] != "local" || card["is_core_admin"] != u.admin || card["is_seed_admin"] != false {
				t.Fatalf("card %v", card)
			}
			ids[u.login] = card["id"].(string)
		}
		boris := s.Login(t, "boris", "password-boris")

		t.Run("create refusals", func(t *testing.T) {
			adm.Do(t, "POST", "/admin/users", map[string]any{"login": "ALICE", "password": "password-x"}).Expect(t, 409, "CONFLICT")
			cases := []struct {
				body  map[string]any
				field string
			}{
				{map[string]any{"login": "", "password": "password-x"}, "login"},
				{map[string]any{"login": "x y", "password": "password-x"}, "login"},
				{map[string]any{"login": "newbie", "password": "short"}, "password"},
				{map[string]any{"login": "newbie", "password": "password-x", "email": "not-an-email"}, "email"},
				{map[string]any{"login": "newbie"}, "password"},
			}
			for _, c := range cases {
				r := adm.Do(t, "POST", "/admin/users", c.body).Expect(t, 400, "VALIDATION_ERROR")
				if r.Error.Details["field"] != c.field {
					t.Errorf("%v: details %v", c.body, r.Error.Details)
				}
			}
			n := adm.Do(t, "GET", "/admin/users?q=newbie", nil).Expect(t, 200)
			if n.Meta["total"].(float64) != 0 {
				t.Fatal("a refused create left a user behind")
			}
		})

		t.Run("list with q, paging and isPortalAdmin", func(t *testing.T) {
			cases := []struct {
				query string
				total int
			}{
				{"", 4}, {"?q=BORIS", 1}, {"?q=corp.example", 3}, {"?q=name%20v", 1},
				{"?isPortalAdmin=true", 2}, {"?isPortalAdmin=false", 2}, {"?q=core-system", 0},
			}
			for _, c := range cases {
				r := adm.Do(t, "GET", "/admin/users"+c.query, nil).Expect(t, 200)
				if int(r.Meta["total"].(float64)) != c.total {
					t.Errorf("%s: total %v want %d", c.query, r.Meta["total"], c.total)
				}
			}
			r := adm.Do(t, "GET", "/admin/users?page=2&limit=3", nil).Expect(t, 200)
			var rows []map[string]any
			r.Into(t, &rows)
			if len(rows) != 1 || r.Meta["totalPages"].(float64) != 2 || r.Meta["page"].(float64) != 2 || r.Meta["limit"].(float64) != 3 {
				t.Fatalf("page 2: %d rows, meta %v", len(rows), r.Meta)
			}
			if _, ok := rows[0]["directory_attrs"]; ok {
				t.Fatal("list rows carry full-card fields")
			}
			for _, q := range []string{"?limit=0", "?limit=501", "?page=0", "?page=x", "?isPortalAdmin=maybe"} {
				adm.Do(t, "GET", "/admin/users"+q, nil).Expect(t, 400, "VALIDATION_ERROR")
			}
		})

		t.Run("read one card", func(t *testing.T) {
			c := adm.Do(t, "GET", "/admin/users/"+ids["vera"], nil).Expect(t, 200).Map(t)
			if c["login"] != "vera" || c["updated_at"] == nil {
				t.Fatalf("card %v", c)
			}
			adm.Do(t, "GET", "/admin/users/00000000-0000-0000-0000-000000000000", nil).Expect(t, 404, "NOT_FOUND")
			adm.Do(t, "GET", "/admin/users/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("patch and the three protections", func(t *testing.T) {
			c := adm.Do(t, "PATCH", "/admin/users/"+ids["vera"], map[string]any{"displayName": "Вера Иванова", "email": "vera@new.example"}).Expect(t, 200).Map(t)
			if c["display_name"] != "Вера Иванова" || c["email"] != "vera@new.example" {
				t.Fatalf("patched %v", c)
			}
			adm.Do(t, "PATCH", "/admin/users/"+ids["vera"], map[string]any{"email": "bad"}).Expect(t, 400, "VALIDATION_ERROR")
			adm.Do(t, "PATCH", "/admin/users/"+ids["vera"], map[string]any{"isCoreAdmin": "yes"}).Expect(t, 400, "VALIDATION_ERROR")
			// self
			r := adm.Do(t, "PATCH", "/admin/users/"+adminID, map[string]any{"isCoreAdmin": false}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "isCoreAdmin" {
				t.Fatalf("details %v", r.Error.Details)
			}
			// bootstrap account, by another administrator
			alice := s.Login(t, "alice", "password-alice")
			alice.Do(t, "PATCH", "/admin/users/"+adminID, map[string]any{"isCoreAdmin": false}).Expect(t, 400, "VALIDATION_ERROR")
			// last administrator: demote alice, then the seed is the only one but protected anyway;
			// make vera admin, deactivate the seed row is impossible over HTTP, so check the last-admin rule
			// with alice as the only non-seed admin after the seed is deactivated by nobody: covered in store tests.
			adm.Do(t, "PATCH", "/admin/users/"+ids["alice"], map[string]any{"isCoreAdmin": false}).Expect(t, 200)
			after := adm.Do(t, "GET", "/admin/users/"+adminID, nil).Expect(t, 200).Map(t)
			if after["is_core_admin"] != true {
				t.Fatal("seed lost the role")
			}
		})

		t.Run("deactivated user is locked out at once", func(t *testing.T) {
			vera := s.Login(t, "vera", "password-vera")
			vera.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			adm.Do(t, "PATCH", "/admin/users/"+ids["vera"], map[string]any{"isActive": false}).Expect(t, 200)
			vera.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "vera", "password": "password-vera"}).Expect(t, 401)
			adm.Do(t, "PATCH", "/admin/users/"+ids["vera"], map[string]any{"isActive": true}).Expect(t, 200)
			// CONTRACT.md: re-activation does not revive the old tokens
			vera.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
			s.Login(t, "vera", "password-vera").Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		})

		t.Run("reset password", func(t *testing.T) {
			before := s.Login(t, "boris", "password-boris")
			adm.Do(t, "POST", "/admin/users/"+ids["boris"]+"/reset-password", map[string]any{"password": "short"}).Expect(t, 400, "VALIDATION_ERROR")
			adm.Do(t, "POST", "/admin/users/"+ids["boris"]+"/reset-password", map[string]any{"password": "brand-new-pass"}).Expect(t, 200)
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "boris", "password": "password-boris"}).Expect(t, 401)
			before.Do(t, "GET", "/auth/me", nil).Expect(t, 401, "UNAUTHORIZED")
			boris = s.Login(t, "boris", "brand-new-pass")
			boris.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		})

		t.Run("ordinary users get 403, anonymous 401", func(t *testing.T) {
			routes := []struct{ method, path string }{
				{"GET", "/admin/users"}, {"POST", "/admin/users"}, {"GET", "/admin/users/" + ids["vera"]},
				{"PATCH", "/admin/users/" + ids["vera"]}, {"POST", "/admin/users/" + ids["vera"] + "/reset-password"},
			}
			for _, rt := range routes {
				var body any
				if rt.method != "GET" {
					body = map[string]any{}
				}
				boris.Do(t, rt.method, rt.path, body).Expect(t, 403, "FORBIDDEN")
				s.Anon().Do(t, rt.method, rt.path, body).Expect(t, 401, "UNAUTHORIZED")
			}
			boris.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		})
		_ = fmt.Sprint
	})
}
