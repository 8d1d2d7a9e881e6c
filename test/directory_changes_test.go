package test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/directory/slapdtest"
	"coreportal/test/kit"
)

// TestDirectoryChanges follows a directory that changes between syncs: a
// removed user (deactivated only when asked, reactivated when back), a
// renamed user, photo changes, membership and group removal, a new user
// signing in first, the directory going down during sign-in and sync; the
// connection comes from legacy LDAP_* variables moved once into settings.
func TestDirectoryChanges(t *testing.T) {
	t.Parallel()
	needSlapd(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			seed := slapdtest.Seed{Users: 30, Groups: 3, PhotoEvery: 2}
			d := ownSlapd(t, seed)
			dbURL, dataDir := b.DatabaseURL(t), t.TempDir()
			legacy := []string{"LDAP_URL=" + d.URL, "LDAP_BASE_DN=" + slapdtest.Suffix, "LDAP_BIND_DN=" + slapdtest.Admin,
				"LDAP_BIND_PASSWORD=" + slapdtest.AdminPassword, "LDAP_LOGIN_ATTR=uid", "LDAP_USER_FILTER=(&(objectClass=inetOrgPerson)(uid=%s))", "LDAP_CONNECT_TIMEOUT_MS=2000"}
			s := kit.StartWith(t, dbURL, dataDir, "serve", legacy...)
			admin := s.Admin(t)
			c := admin.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t)
			if c["url"] != d.URL || c["configured"] != true || c["hasPassword"] != true || c["userFilter"] != "(&(objectClass=inetOrgPerson)(uid={{username}}))" {
				t.Fatalf("legacy LDAP_* not moved: %v", c)
			}
			admin.Do(t, "PUT", "/admin/settings/ldap-sync", openLDAPSync(map[string]any{"removeMissingGroups": true})).Expect(t, 200)
			first := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded"))
			if first.Users.Created != 30 || first.Groups.Created != 3 || first.Photos.Written != 15 {
				t.Fatalf("first sync %+v", first)
			}
			conn := ldapAdmin(t, d)
			u5 := userByLogin(t, admin, "user0005")
			u2 := userByLogin(t, admin, "user0002")
			u7 := userByLogin(t, admin, "user0007")
			modify := func(dn string, fn func(*ldap.ModifyRequest)) {
				m := ldap.NewModifyRequest(dn, nil)
				fn(m)
				if err := conn.Modify(m); err != nil {
					t.Fatal(err)
				}
			}
			// rename user0005 (login and display name), remove user0007, change two photos, drop a member, delete a group
			modify(seed.UserDN(5), func(m *ldap.ModifyRequest) { m.Replace("displayName", []string{"Five Renamed"}) })
			if err := conn.ModifyDN(ldap.NewModifyDNRequest(seed.UserDN(5), "uid=user0005x", true, "")); err != nil {
				t.Fatal(err)
			}
			if err := conn.Del(ldap.NewDelRequest(seed.UserDN(7), nil)); err != nil {
				t.Fatal(err)
			}
			modify(seed.UserDN(2), func(m *ldap.ModifyRequest) { m.Replace("jpegPhoto", []string{string(slapdtest.Photo("new"))}) })
			modify(seed.UserDN(4), func(m *ldap.ModifyRequest) { m.Delete("jpegPhoto", nil) })
			modify(slapdtest.GroupDN(0), func(m *ldap.ModifyRequest) { m.Delete("member", []string{seed.UserDN(3)}) })
			if err := conn.Del(ldap.NewDelRequest(slapdtest.GroupDN(2), nil)); err != nil {
				t.Fatal(err)
			}
			portal := admin.Do(t, "POST", "/groups", map[string]any{"name": "grp002"}).Expect(t, 201).Map(t)

			r := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded"))
			if r.Users.Seen != 29 || r.Users.Updated != 1 || r.Users.Deactivated != 0 || r.Photos.Written != 1 || r.Photos.Removed != 1 ||
				r.Groups.Removed != 1 || r.Groups.MembershipChanged != 1 || r.Errors != 0 {
				t.Fatalf("sync after changes %+v", r)
			}
			renamed := userByLogin(t, admin, "user0005x")
			if renamed == nil || renamed["id"] != u5["id"] || userByLogin(t, admin, "user0005") != nil {
				t.Fatalf("renamed user %v (was %v)", renamed, u5["id"])
			}
			// the new display name re-indexes what names the user (search)
			var reindex []map[string]any
			admin.Do(t, "GET", "/jobs?type=search.reindexSubject", nil).Expect(t, 200).Into(t, &reindex)
			if len(reindex) != 1 || reindex[0]["payload"].(map[string]any)["subjectId"] != u5["id"] {
				t.Fatalf("re-index jobs after the directory rename: %v", reindex)
			}
			if gone := userByLogin(t, admin, "user0007"); gone["is_active"] != true {
				t.Fatalf("removed user deactivated without being asked: %v", gone)
			}
			if st, _, body := avatar(t, admin, u2["id"].(string)); st != 200 || !bytes.Equal(body, slapdtest.Photo("new")) {
				t.Fatalf("changed photo %d %q", st, body)
			}
			if st, _, _ := avatar(t, admin, userByLogin(t, admin, "user0004")["id"].(string)); st != 404 {
				t.Fatalf("removed photo still served: %d", st)
			}
			if m := memberLogins(groupByName(t, admin, "grp000")); m["user0003"] || !m["user0000"] {
				t.Fatalf("grp000 members %v", m)
			}
			if p := admin.Do(t, "GET", "/groups/"+portal["id"].(string), nil).Expect(t, 200).Map(t); p["group_type"] != "portal" {
				t.Fatalf("portal group of the same name as a removed directory group: %v", p)
			}

			// deactivation only when asked; reactivation when the entry is back
			r = resultOf(t, runSync(t, admin, map[string]any{"deactivateMissing": true}, "succeeded"))
			if r.Users.Deactivated != 1 || r.Users.Unchanged != 29 {
				t.Fatalf("deactivating run %+v", r)
			}
			if gone := userByLogin(t, admin, "user0007"); gone["is_active"] != false || gone["id"] != u7["id"] {
				t.Fatalf("user0007 after deactivateMissing %v", gone)
			}
			add := ldap.NewAddRequest(seed.UserDN(7), nil)
			for k, v := range map[string][]string{"objectClass": {"inetOrgPerson"}, "uid": {"user0007"}, "cn": {"Back"}, "sn": {"B"}, "userPassword": {"pw-user0007"}} {
				add.Attribute(k, v)
			}
			if err := conn.Add(add); err != nil {
				t.Fatal(err)
			}
			// a re-created entry has a new entryUUID: the login belongs to the old, deactivated
			// directory account, so the sync reports a conflict and never hands that account over
			r = resultOf(t, runSync(t, admin, map[string]any{}, "succeeded"))
			if r.Errors != 1 || !strings.Contains(strings.Join(r.ErrorMessages, " "), "user0007") {
				t.Fatalf("re-created entry with another id %+v", r)
			}
			if err := conn.Del(ldap.NewDelRequest(seed.UserDN(7), nil)); err != nil {
				t.Fatal(err)
			}

			// cronDeactivateMissing applies without a run override
			admin.Do(t, "PUT", "/admin/settings/ldap-sync", openLDAPSync(map[string]any{"cronDeactivateMissing": true, "removeMissingGroups": true})).Expect(t, 200)
			if err := conn.Del(ldap.NewDelRequest(seed.UserDN(9), nil)); err != nil {
				t.Fatal(err)
			}
			if r = resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Users.Deactivated != 1 {
				t.Fatalf("cronDeactivateMissing %+v", r)
			}
			if r = resultOf(t, runSync(t, admin, map[string]any{"deactivateMissing": false}, "succeeded")); r.Users.Deactivated != 0 {
				t.Fatalf("override false %+v", r)
			}

			// a user outside the sync selection is deactivated by the sync, cannot sign in
			// (sign-in never brings such a user back) and is reactivated by the sync that sees it again
			narrow := openLDAPSync(map[string]any{"cronDeactivateMissing": true, "removeMissingGroups": true, "syncFilter": "(&(objectClass=inetOrgPerson)(!(uid=user0011)))"})
			admin.Do(t, "PUT", "/admin/settings/ldap-sync", narrow).Expect(t, 200)
			if r = resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Users.Deactivated != 1 {
				t.Fatalf("narrowed selection %+v", r)
			}
			u11 := map[string]any{"login": "user0011", "password": slapdtest.Password("user0011"), "authType": "domain"}
			s.Anon().Do(t, "POST", "/auth/login", u11).Expect(t, 401, "UNAUTHORIZED")
			admin.Do(t, "PUT", "/admin/settings/ldap-sync", openLDAPSync(map[string]any{"cronDeactivateMissing": true, "removeMissingGroups": true})).Expect(t, 200)
			if r = resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Users.Reactivated != 1 || r.Users.Deactivated != 0 {
				t.Fatalf("selection restored %+v", r)
			}
			s.Anon().Do(t, "POST", "/auth/login", u11).Expect(t, 200)

			// a user who signs in before any sync is created by the sign-in
			add = ldap.NewAddRequest("uid=newbie,ou=people,"+slapdtest.Suffix, nil)
			for k, v := range map[string][]string{"objectClass": {"inetOrgPerson"}, "uid": {"newbie"}, "cn": {"New Bie"}, "sn": {"Bie"},
				"displayName": {"New Bie"}, "mail": {"newbie@example.org"}, "userPassword": {"pw-newbie"}} {
				add.Attribute(k, v)
			}
			if err := conn.Add(add); err != nil {
				t.Fatal(err)
			}
			login := map[string]any{"login": "newbie", "password": "pw-newbie", "authType": "domain"}
			var sess struct{ User map[string]any }
			s.Anon().Do(t, "POST", "/auth/login", login).Expect(t, 200).Into(t, &sess)
			if sess.User["auth_source"] != "domain" || sess.User["display_name"] != "New Bie" || sess.User["email"] != "newbie@example.org" || sess.User["external_id"] == nil {
				t.Fatalf("user created by domain sign-in %v", sess.User)
			}

			// a local account is never taken over by a directory entry of the same login
			local, localID := s.CreateUser(t, "localann", false)
			add = ldap.NewAddRequest("uid=localann,ou=people,"+slapdtest.Suffix, nil)
			for k, v := range map[string][]string{"objectClass": {"inetOrgPerson"}, "uid": {"localann"}, "cn": {"Impostor"}, "sn": {"I"}, "userPassword": {"pw-impostor"}} {
				add.Attribute(k, v)
			}
			if err := conn.Add(add); err != nil {
				t.Fatal(err)
			}
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "localann", "password": "pw-impostor", "authType": "domain"}).Expect(t, 401, "UNAUTHORIZED")
			if r = resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Errors != 1 || !strings.Contains(strings.Join(r.ErrorMessages, " "), "local account") {
				t.Fatalf("sync over a local login %+v", r)
			}
			if me := local.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t); me["id"] != localID || me["auth_source"] != "local" || me["display_name"] == "Impostor" {
				t.Fatalf("local account changed by the directory: %v", me)
			}

			// the directory goes down
			d.Stop()
			s.Anon().Do(t, "POST", "/auth/login", login).Expect(t, 503, "UNAVAILABLE")
			job := runSync(t, admin, map[string]any{}, "failed")
			if msg, _ := job["error"].(string); !strings.Contains(msg, "cannot reach the directory server (refused)") {
				t.Fatalf("failed sync error %v", job["error"])
			}
			st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["connected"] != false || st["error"] != "cannot reach the directory server (refused)" {
				t.Fatalf("status while down %v", st)
			}
			admin.Do(t, "GET", "/directory/search?q=user", nil).Expect(t, 503, "UNAVAILABLE")
			admin.Do(t, "PATCH", "/services/ad-sync", map[string]any{"isEnabled": true}).Expect(t, 409, "CONFLICT")
			if u := userByLogin(t, admin, "user0001"); u["is_active"] != true {
				t.Fatal("a failed sync deactivated users")
			}
			if err := d.Restart(); err != nil {
				t.Fatal(err)
			}
			s.Anon().Do(t, "POST", "/auth/login", login).Expect(t, 200)

			// later starts do not read LDAP_* again
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			s2 := kit.StartWith(t, dbURL, dataDir, "serve", "LDAP_URL=ldap://elsewhere:389", "LDAP_BIND_PASSWORD=other")
			if c := s2.Admin(t).Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t); c["url"] != d.URL {
				t.Fatalf("LDAP_* read again on a later start: %v", c["url"])
			}
		})
	}
}
