package test

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestDirectoryProbe: the directory settings cannot serve as a network
// probe. Control characters never reach a server, connection errors name
// only a category (refused, not LDAP), anonymous domain sign-in learns only
// "directory unavailable" while the log keeps the detail, and
// CORE_DIRECTORY_ALLOWED_HOSTS refuses other hosts on save and at connect.
func TestDirectoryProbe(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		closed := closedLoopbackPort(t)
		garbage := garbageListener(t)
		conn := func(url string) map[string]any {
			return map[string]any{"url": url, "baseDn": "dc=example,dc=org", "bindDn": "cn=admin,dc=example,dc=org",
				"bindPassword": "secret", "loginAttr": "uid", "connectTimeoutMs": 2000}
		}

		t.Run("control characters", func(t *testing.T) {
			for _, tc := range []struct{ field, value string }{
				{"bindPassword", "pw\r\nSET injected 1\r\n"},
				{"bindPassword", "pw\tx"},
				{"bindDn", "cn=admin\n,dc=example,dc=org"},
				{"baseDn", "dc=example,\rdc=org"},
				{"userFilter", "(uid={{username}})\r\n"},
				{"userFilter", "(uid={{username}}\n)"},
				{"searchFilter", "(cn=*{{query}}*)\u0085"},
			} {
				body := conn("ldap://" + closed)
				body[tc.field] = tc.value
				r := admin.Do(t, "PUT", "/admin/settings/ldap", body).Expect(t, 400, "VALIDATION_ERROR")
				if r.Error.Details["field"] != tc.field || !strings.Contains(r.Error.Message, "control characters") {
					t.Errorf("%s %q: %s", tc.field, tc.value, r.Raw)
				}
			}
			for _, f := range []string{"syncFilter", "groupSyncFilter"} {
				r := admin.Do(t, "PUT", "/admin/settings/ldap-sync", map[string]any{f: "(objectClass=person)\n"}).Expect(t, 400, "VALIDATION_ERROR")
				if r.Error.Details["field"] != f {
					t.Errorf("%s: %s", f, r.Raw)
				}
			}
			if c := admin.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t); c["configured"] != false {
				t.Fatalf("a refused PUT changed the settings: %v", c)
			}
		})

		t.Run("errors name only the category", func(t *testing.T) {
			for _, tc := range []struct{ addr, want string }{{closed, "(refused)"}, {garbage, "(not LDAP)"}} {
				admin.Do(t, "PUT", "/admin/settings/ldap", conn("ldap://"+tc.addr)).Expect(t, 200)
				st := admin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
				msg, _ := st["error"].(string)
				_, port, _ := net.SplitHostPort(tc.addr)
				if st["connected"] != false || msg != "cannot reach the directory server "+tc.want || strings.Contains(msg, port) {
					t.Fatalf("status of %s: %v", tc.addr, st)
				}
				r := s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "user0001", "password": "x", "authType": "domain"}).Expect(t, 503, "UNAVAILABLE")
				if r.Error.Message != "directory unavailable" || strings.Contains(string(r.Raw), port) || strings.Contains(string(r.Raw), "127.0.0.1") {
					t.Fatalf("anonymous domain sign-in against %s: %s", tc.addr, r.Raw)
				}
				if !strings.Contains(s.Logs(), tc.addr) {
					t.Fatalf("the log does not name the server %s for operators", tc.addr)
				}
			}
		})

		t.Run("allowed hosts", func(t *testing.T) {
			admin.Do(t, "PUT", "/admin/settings/ldap", conn("ldap://"+closed)).Expect(t, 200)
			other := kit.StartWith(t, s.DBURL, s.DataDir, "serve", "CORE_DIRECTORY_ALLOWED_HOSTS=ldap.example.org, *.corp.example:636")
			oadmin := &kit.Client{S: other, Token: admin.Token, HTTP: admin.HTTP}
			st := oadmin.Do(t, "GET", "/admin/settings/ldap-status", nil).Expect(t, 200).Map(t)
			if msg, _ := st["error"].(string); st["connected"] != false || !strings.Contains(msg, "CORE_DIRECTORY_ALLOWED_HOSTS") {
				t.Fatalf("status of a stored url that is not allowed: %v", st)
			}
			if strings.Contains(other.Logs(), closed) {
				t.Fatal("the instance connected to a host CORE_DIRECTORY_ALLOWED_HOSTS does not allow")
			}
			for _, u := range []string{"ldap://" + closed, "ldap://localhost:6379", "ldap://dc1.corp.example", "ldaps://ldap.example.org.evil"} {
				r := oadmin.Do(t, "PUT", "/admin/settings/ldap", conn(u)).Expect(t, 400, "VALIDATION_ERROR")
				if r.Error.Details["field"] != "url" {
					t.Fatalf("%s: %s", u, r.Raw)
				}
			}
			for _, u := range []string{"ldap://ldap.example.org", "ldaps://LDAP.example.org:636", "ldaps://dc1.corp.example"} {
				oadmin.Do(t, "PUT", "/admin/settings/ldap", conn(u)).Expect(t, 200)
			}
		})
	})
}

// closedLoopbackPort is a loopback address nothing listens on.
func closedLoopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// garbageListener accepts connections and answers each with bytes that are
// not LDAP, then closes it.
func garbageListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = fmt.Fprintf(c, "-ERR unknown command\r\nHTTP/1.1 400 Bad Request\r\n\r\n")
			_ = c.Close()
		}
	}()
	return l.Addr().String()
}
