package test

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/directory/slapdtest"
	"coreportal/test/kit"
)

// bigSeed is the shared, read-only directory: 1,000 users in nested OUs,
// groups with nested groups, photos, managers and one manager loop.
var bigSeed = slapdtest.Seed{Users: 1000, Groups: 20, PhotoEvery: 4}

var (
	sharedOnce sync.Once
	shared     *slapdtest.Server
	sharedDir  string
	sharedErr  error
)

// TestMain stops the shared directory once every test of the binary ran:
// it used to outlive the test run as an orphaned slapd.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// needSlapd skips (or, under CI=true, fails) when slapd is not installed.
func needSlapd(t *testing.T) {
	t.Helper()
	if !slapdtest.Available() {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but slapd is not installed (.ci/run installs the slapd and ldap-utils packages)")
		}
		t.Skip("slapd not installed")
	}
}

// sharedSlapd starts the read-only directory once per test binary.
func sharedSlapd(t *testing.T) *slapdtest.Server {
	t.Helper()
	needSlapd(t)
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "slapd-shared")
		if err != nil {
			sharedErr = err
			return
		}
		sharedDir = dir
		shared, sharedErr = slapdtest.Start(dir, bigSeed.LDIF())
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// ownSlapd starts a directory a test may change; it stops at cleanup.
func ownSlapd(t *testing.T, seed slapdtest.Seed) *slapdtest.Server {
	t.Helper()
	needSlapd(t)
	s, err := slapdtest.Start(t.TempDir(), seed.LDIF())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// ldapConnection is the connection body for a slapdtest server.
func ldapConnection(d *slapdtest.Server) map[string]any {
	return map[string]any{"url": d.URL, "baseDn": slapdtest.Suffix, "bindDn": slapdtest.Admin, "bindPassword": slapdtest.AdminPassword,
		"loginAttr": "uid", "connectTimeoutMs": 2000}
}

// openLDAPSync maps the catalog to inetOrgPerson attributes.
func openLDAPSync(extra map[string]any) map[string]any {
	b := map[string]any{"syncGroups": true,
		"attributeMap":            map[string]any{"thumbnailPhoto": "jpegPhoto", "department": "departmentNumber", "company": "o"},
		"personCardVisibleFields": []string{"title", "department", "email", "telephoneNumber"}}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// runSync runs ad-sync and returns the job once it reached status.
func runSync(t *testing.T, admin *kit.Client, body map[string]any, status string) map[string]any {
	t.Helper()
	r := admin.Do(t, "POST", "/services/ad-sync/run", body).Expect(t, 202).Map(t)
	return waitJobFor(t, admin, r["jobId"].(string), status, 120*time.Second)
}

func waitJobFor(t *testing.T, c *kit.Client, id, status string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	var j map[string]any
	for time.Now().Before(deadline) {
		j = c.Do(t, "GET", "/jobs/"+id, nil).Expect(t, 200).Map(t)
		if j["status"] == status || j["status"] == "failed" || j["status"] == "succeeded" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if j["status"] != status {
		t.Fatalf("job %s: %v, want status %s", id, j, status)
	}
	return j
}

// syncResult decodes the result of a finished adSync.run job.
type syncResult struct {
	Users struct {
		Seen, Created, Updated, Reactivated, Unchanged, Deactivated int
		ManagersChanged                                             int `json:"managersChanged"`
	}
	Groups struct {
		Seen, Created, Updated, Unchanged, Removed int
		MembershipChanged                          int `json:"membershipChanged"`
	}
	Photos        struct{ Written, Removed int }
	Errors        int
	ErrorMessages []string `json:"errorMessages"`
	Truncated     bool
}

func resultOf(t *testing.T, job map[string]any) syncResult {
	t.Helper()
	b, _ := json.Marshal(job["result"])
	var r syncResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	return r
}

// userByLogin finds a user through the admin list.
func userByLogin(t *testing.T, admin *kit.Client, login string) map[string]any {
	t.Helper()
	var rows []map[string]any
	admin.Do(t, "GET", "/admin/users?limit=500&q="+login, nil).Expect(t, 200).Into(t, &rows)
	for _, r := range rows {
		if r["login"] == login {
			return admin.Do(t, "GET", "/admin/users/"+r["id"].(string), nil).Expect(t, 200).Map(t)
		}
	}
	return nil
}

// groupByName finds a group by name.
func groupByName(t *testing.T, admin *kit.Client, name string) map[string]any {
	t.Helper()
	var rows []map[string]any
	admin.Do(t, "GET", "/groups", nil).Expect(t, 200).Into(t, &rows)
	for _, r := range rows {
		if r["name"] == name {
			return admin.Do(t, "GET", "/groups/"+r["id"].(string), nil).Expect(t, 200).Map(t)
		}
	}
	return nil
}

func memberLogins(g map[string]any) map[string]bool {
	out := map[string]bool{}
	ms, _ := g["members"].([]any)
	for _, m := range ms {
		out[m.(map[string]any)["login"].(string)] = true
	}
	return out
}

// ldapAdmin opens an administrative connection to change the test directory.
func ldapAdmin(t *testing.T, d *slapdtest.Server) *ldap.Conn {
	t.Helper()
	c, err := ldap.DialURL(d.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(slapdtest.Admin, slapdtest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// cuttingProxy forwards TCP to target and drops each connection once it has
// sent limit bytes towards the client: a directory lost in the middle of an
// answer.
func cuttingProxy(t *testing.T, target string, limit int64) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.CopyN(c, up, limit)
			}()
		}
	}()
	return l.Addr().String()
}
