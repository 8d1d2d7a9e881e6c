package test

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"coreportal/internal/directory/slapdtest"
	"coreportal/test/kit"
)

// TestDirectory runs settings, connection checks, the enable check, a full
// sync of 1,000 users and 20 groups (twice), domain sign-in and directory
// search against a real slapd, on both databases.
func TestDirectory(t *testing.T) {
	t.Parallel()
	d := sharedSlapd(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		t.Run("unconfigured", func(t *testing.T) {
			c := admin.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t)
			defs, _ := c["defaults"].(map[string]any)
			if c["configured"] != false || c["hasPassword"] != false || defs["loginAttr"] != "sAMAccountName" || defs["searchLimit"] != float64(50) {
				t.Fatalf("defaults %v", c)
			}
			st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["configured"] != false || st["connected"] != false || st["error"] == "" {
				t.Fatalf("status %v", st)
			}
			admin.Do(t, "PATCH", "/services/ad-sync", map[string]any{"isEnabled": true}).Expect(t, 409, "CONFLICT")
			admin.Do(t, "GET", "/directory/search?q=user", nil).Expect(t, 409, "CONFLICT")
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "user0001", "password": "x", "authType": "domain"}).Expect(t, 400, "VALIDATION_ERROR")
		})
		t.Run("settings validation", func(t *testing.T) {
			good := ldapConnection(d)
			for _, tc := range []struct {
				name, field string
				value       any
			}{
				{"http url", "url", "http://127.0.0.1:389"},
				{"url with path", "url", "ldap://host/dc=x"},
				{"url without host", "url", "ldap://"},
				{"bad base", "baseDn", "not a dn"},
				{"bad bind", "bindDn", "=x,"},
				{"no placeholder", "userFilter", "(uid=admin)"},
				{"bad filter", "userFilter", "(uid={{username}}"},
				{"search without placeholder", "searchFilter", "(cn=*)"},
				{"bad attribute", "loginAttr", "u id"},
				{"bad CA", "tlsCaCert", "not a certificate"},
				{"limit", "searchLimit", 5000},
				{"timeout", "connectTimeoutMs", -1},
			} {
				body := map[string]any{}
				for k, v := range good {
					body[k] = v
				}
				body[tc.field] = tc.value
				r := admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 400, "VALIDATION_ERROR")
				if f, _ := r.Error.Details["field"].(string); !strings.Contains(f, tc.field) && !strings.Contains(string(r.Raw), tc.field) {
					t.Errorf("%s: %s", tc.name, r.Raw)
				}
			}
			body := ldapConnection(d)
			body["url"], body["startTls"] = d.TLSURL, true
			admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 400, "VALIDATION_ERROR")
			admin.Do(t, "PUT", "/admin/settings/ldap", map[string]any{"url": d.URL, "bogus": 1}).Expect(t, 400, "VALIDATION_ERROR")
			if c := admin.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t); c["url"] != "" || c["configured"] != false {
				t.Fatalf("a refused PUT changed the settings: %v", c)
			}
		})
		t.Run("connection and enable check", func(t *testing.T) {
			body := ldapConnection(d)
			body["bindPassword"] = "wrong"
			r := admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 200)
			if strings.Contains(string(r.Raw), "wrong") || r.Map(t)["hasPassword"] != true || r.Map(t)["configured"] != true {
				t.Fatalf("put: %s", r.Raw)
			}
			st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["connected"] != false || !strings.Contains(st["error"].(string), "invalid credentials") {
				t.Fatalf("status with a wrong password %v", st)
			}
			r = admin.Do(t, "PATCH", "/services/ad-sync", map[string]any{"isEnabled": true}).Expect(t, 409, "CONFLICT")
			if reason, _ := r.Error.Details["reason"].(string); !strings.Contains(reason, "invalid credentials") {
				t.Fatalf("409 without reason: %s", r.Raw)
			}
			admin.Do(t, "PUT", "/admin/settings/ldap", ldapConnection(d)).Expect(t, 200)
			// the mask keeps the password; a changed bindDn needs it again
			keep := ldapConnection(d)
			keep["bindPassword"] = "********"
			admin.Do(t, "PUT", "/admin/settings/ldap", keep).Expect(t, 200)
			moved := ldapConnection(d)
			delete(moved, "bindPassword")
			moved["bindDn"] = "cn=other," + slapdtest.Suffix
			admin.Do(t, "PUT", "/admin/settings/ldap", moved).Expect(t, 400, "VALIDATION_ERROR")
			st = admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["connected"] != true || st["error"] != "" || st["baseDn"] != slapdtest.Suffix {
				t.Fatalf("status %v", st)
			}
			svc := admin.Do(t, "PATCH", "/services/ad-sync", map[string]any{"isEnabled": true}).Expect(t, 200)
			if svc.Map(t)["isEnabled"] != true || svc.Map(t)["available"] != true || strings.Contains(string(svc.Raw), slapdtest.AdminPassword) {
				t.Fatalf("enable: %s", svc.Raw)
			}
			if raw := admin.Do(t, "GET", "/services", nil).Expect(t, 200).Raw; bytes.Contains(raw, []byte(slapdtest.AdminPassword)) {
				t.Fatal("GET /services leaks the bind password")
			}
			if strings.Contains(s.Logs(), slapdtest.AdminPassword) {
				t.Fatal("the bind password reached the log")
			}
		})
		t.Run("tls", func(t *testing.T) {
			body := ldapConnection(d)
			body["url"] = d.TLSURL
			admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 200)
			st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["connected"] != false || !strings.Contains(st["error"].(string), "not trusted") {
				t.Fatalf("ldaps with an unknown CA: %v", st)
			}
			body["tlsCaCert"] = d.CAPEM
			admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 200)
			if st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t); st["connected"] != true {
				t.Fatalf("ldaps with the CA: %v", st)
			}
			start := ldapConnection(d)
			start["url"] = strings.Replace(d.URL, "127.0.0.1", "localhost", 1)
			start["startTls"], start["tlsCaCert"] = true, d.CAPEM
			admin.Do(t, "PUT", "/admin/settings/ldap", start).Expect(t, 200)
			if st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t); st["connected"] != true {
				t.Fatalf("StartTLS with the CA: %v", st)
			}
			delete(start, "tlsCaCert")
			admin.Do(t, "PUT", "/admin/settings/ldap", start).Expect(t, 200)
			if st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t); st["connected"] != false || !strings.Contains(st["error"].(string), "not trusted") {
				t.Fatalf("StartTLS with an unknown CA: %v", st)
			}
			admin.Do(t, "PUT", "/admin/settings/ldap", ldapConnection(d)).Expect(t, 200)
		})
		t.Run("timeout", func(t *testing.T) {
			// a server that accepts connections and never answers
			silent, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer silent.Close()
			body := ldapConnection(d)
			body["url"], body["connectTimeoutMs"] = "ldap://"+silent.Addr().String(), 300
			admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 200)
			start := time.Now()
			st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if st["connected"] != false || st["error"] != "cannot reach the directory server (timeout)" || time.Since(start) > 3*time.Second {
				t.Fatalf("status of a silent server after %v: %v", time.Since(start), st)
			}
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "user0001", "password": "x", "authType": "domain"}).Expect(t, 503, "UNAVAILABLE")
			admin.Do(t, "PUT", "/admin/settings/ldap", ldapConnection(d)).Expect(t, 200)
		})
		t.Run("sync settings", func(t *testing.T) {
			for _, bad := range []map[string]any{
				{"syncUserAttributes": []string{"nope"}},
				{"personCardVisibleFields": []string{"nope"}},
				{"attributeMap": map[string]any{"login": "uid"}},
				{"attributeMap": map[string]any{"title": "bad attr"}},
				{"syncFilter": "(objectClass=person"},
				{"customUserAttributes": []map[string]any{{"key": "title", "ldapAttr": "title"}}},
				{"syncLimit": -1},
			} {
				admin.Do(t, "PUT", "/admin/settings/ldap-sync", bad).Expect(t, 400, "VALIDATION_ERROR")
			}
			cfg := openLDAPSync(map[string]any{"customUserAttributes": []map[string]any{{"key": "room", "ldapAttr": "roomNumber", "label": "Room"}}})
			r := admin.Do(t, "PUT", "/admin/settings/ldap-sync", cfg).Expect(t, 200).Map(t)
			cat := map[string]string{}
			for _, it := range r["catalog"].([]any) {
				m := it.(map[string]any)
				cat[m["key"].(string)] = m["ldapAttr"].(string)
			}
			if cat["thumbnailPhoto"] != "jpegPhoto" || cat["login"] != "uid" || cat["email"] != "mail" || r["effectiveSyncLimit"] != float64(100000) ||
				r["removeMissingGroupMembers"] != true || fmt.Sprint(r["personCardVisibleFields"]) != "[title department email telephoneNumber]" ||
				len(r["syncUserAttributes"].([]any)) != 11 || r["effectiveSyncFilter"] == "" {
				t.Fatalf("sync settings %v", r)
			}
		})
		t.Run("sync", func(t *testing.T) { testBigSync(t, s, admin) })
		t.Run("directory lost during sync", func(t *testing.T) {
			body := ldapConnection(d)
			body["url"] = "ldap://" + cuttingProxy(t, strings.TrimPrefix(d.URL, "ldap://"), 250_000)
			admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 200)
			job := runSync(t, admin, map[string]any{"deactivateMissing": true}, "failed")
			if msg, _ := job["error"].(string); !strings.Contains(msg, "user pass") {
				t.Fatalf("error of a sync cut short: %v", job["error"])
			}
			var active []map[string]any
			admin.Do(t, "GET", "/admin/users?limit=1&q=user0999", nil).Expect(t, 200).Into(t, &active)
			if len(active) != 1 || active[0]["is_active"] != true {
				t.Fatalf("a sync cut short deactivated users: %v", active)
			}
			admin.Do(t, "PUT", "/admin/settings/ldap", ldapConnection(d)).Expect(t, 200)
		})
		t.Run("sign-in", func(t *testing.T) { testDomainSignIn(t, s, admin) })
		t.Run("search", func(t *testing.T) {
			var res struct {
				People []struct {
					Login, DisplayName, Email, Department, Title string
					ExistsLocally                                bool
					UserID                                       *string
				}
				Truncated bool
				Limit     int
			}
			admin.Do(t, "GET", "/directory/search?q=user012", nil).Expect(t, 200).Into(t, &res)
			if len(res.People) != 10 || res.Truncated || !res.People[0].ExistsLocally || res.People[0].UserID == nil ||
				res.People[0].Department == "" || res.People[0].Title == "" || !strings.HasSuffix(res.People[0].Email, "@example.org") {
				t.Fatalf("search %+v", res)
			}
			admin.Do(t, "GET", "/directory/search?q=user", nil).Expect(t, 200).Into(t, &res)
			if len(res.People) != 50 || !res.Truncated || res.Limit != 50 {
				t.Fatalf("limit: %d people, truncated %v", len(res.People), res.Truncated)
			}
			for _, q := range []string{"*)(uid=*", "*", `\00`, "(", "user0001)(|(uid=*"} {
				admin.Do(t, "GET", "/directory/search?q="+url.QueryEscape(q), nil).Expect(t, 200).Into(t, &res)
				if len(res.People) != 0 {
					t.Fatalf("injection %q found %d people", q, len(res.People))
				}
			}
			admin.Do(t, "GET", "/directory/search", nil).Expect(t, 400, "VALIDATION_ERROR")
			admin.Do(t, "GET", "/directory/search?q=", nil).Expect(t, 400, "VALIDATION_ERROR")
			user, _ := s.CreateUser(t, "plainsearch", false)
			user.Do(t, "GET", "/directory/search?q=user", nil).Expect(t, 403, "FORBIDDEN")
			user.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 403, "FORBIDDEN")
		})
	})
}
