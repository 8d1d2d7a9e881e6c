package test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/test/kit"
)

// kdc is a real MIT Kerberos KDC on loopback with realm CORE.TEST, the user
// alice (password alicepw), HTTP/localhost (in the keytab) and host/localhost
// (another service, not in the keytab).
type kdc struct {
	dir, keytab string
	env         []string
}

const kdcRealm = "CORE.TEST"

// needKDC skips (or, under CI=true, fails) when MIT Kerberos is missing.
func needKDC(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"krb5kdc", "kdb5_util", "kadmin.local", "kinit", "curl"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true but %s is not installed (.ci/run installs krb5-kdc, krb5-admin-server and krb5-user)", bin)
			}
			t.Skipf("%s not installed (apt-get install krb5-kdc krb5-admin-server krb5-user)", bin)
		}
	}
}

func startKDC(t *testing.T) *kdc {
	t.Helper()
	needKDC(t)
	dir := t.TempDir()
	port := strings.TrimPrefix(kit.FreePort(t), "127.0.0.1:")
	k := &kdc{dir: dir, keytab: filepath.Join(dir, "http.keytab")}
	conf := fmt.Sprintf(`[libdefaults]
 default_realm = %[1]s
 dns_lookup_kdc = false
 dns_lookup_realm = false
 dns_canonicalize_hostname = false
 rdns = false
 udp_preference_limit = 1
 ticket_lifetime = 1h
[realms]
 %[1]s = {
  kdc = 127.0.0.1:%[2]s
 }
[domain_realm]
 localhost = %[1]s
`, kdcRealm, port)
	kdcConf := fmt.Sprintf(`[kdcdefaults]
 kdc_ports = %[2]s
 kdc_tcp_ports = %[2]s
[realms]
 %[1]s = {
  database_name = %[3]s/principal
  key_stash_file = %[3]s/stash
  acl_file = %[3]s/kadm5.acl
  max_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:%[3]s/kdc.log
`, kdcRealm, port, dir)
	mustKrb(t, os.WriteFile(filepath.Join(dir, "krb5.conf"), []byte(conf), 0o600))
	mustKrb(t, os.WriteFile(filepath.Join(dir, "kdc.conf"), []byte(kdcConf), 0o600))
	mustKrb(t, os.WriteFile(filepath.Join(dir, "kadm5.acl"), nil, 0o600))
	k.env = append(os.Environ(), "KRB5_CONFIG="+filepath.Join(dir, "krb5.conf"), "KRB5_KDC_PROFILE="+filepath.Join(dir, "kdc.conf"),
		"KRB5CCNAME=FILE:"+filepath.Join(dir, "cc"), "KRB5RCACHETYPE=none")
	k.run(t, "", "kdb5_util", "-r", kdcRealm, "-P", "master-pw", "create", "-s")
	for _, q := range []string{"addprinc -pw alicepw alice", "addprinc -pw bobpw bob", "addprinc -randkey HTTP/localhost",
		"addprinc -randkey host/localhost", "ktadd -k " + k.keytab + " HTTP/localhost"} {
		k.run(t, "", "kadmin.local", "-r", kdcRealm, "-q", q)
	}
	cmd := exec.Command("krb5kdc", "-n", "-r", kdcRealm)
	cmd.Env = k.env
	mustKrb(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("KDC not listening: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return k
}

func mustKrb(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// run runs a Kerberos tool with the realm's environment (stdin = input).
func (k *kdc) run(t *testing.T, input string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = k.env
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// kinit gets a ticket-granting ticket for user into the realm's cache.
func (k *kdc) kinit(t *testing.T, user, password string, life string) {
	t.Helper()
	k.run(t, password+"\n", "kinit", "-l", life, user+"@"+kdcRealm)
}

// curl runs curl --negotiate against url and returns the status and body.
func (k *kdc) curl(t *testing.T, url string, extra ...string) (int, string) {
	t.Helper()
	args := []string{"-s", "-o", "-", "-w", "\n%{http_code}"}
	if len(extra) == 0 || extra[0] != "--no-negotiate" {
		args = append(args, "--negotiate", "-u", ":")
	} else {
		extra = extra[1:]
	}
	args = append(args, extra...)
	out := k.run(t, "", "curl", append(args, url)...)
	i := strings.LastIndexByte(out, '\n')
	var code int
	fmt.Sscanf(out[i+1:], "%d", &code)
	return code, out[:i]
}

// captureToken has curl --negotiate send a ticket for HTTP/localhost to a
// listener that only records it: a token never shown to the portal.
func (k *kdc) captureToken(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		if h == "" {
			w.Header().Set("WWW-Authenticate", "Negotiate")
			w.WriteHeader(401)
			return
		}
		mu.Lock()
		got = h
		mu.Unlock()
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	k.curl(t, "http://localhost:"+port+"/")
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasPrefix(got, "Negotiate ") {
		t.Fatalf("curl sent no Negotiate token: %q", got)
	}
	return got
}

func negotiateWith(t *testing.T, s *kit.Server, header string) *kit.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/auth/negotiate", nil)
	req.Header.Set("Authorization", header)
	return s.Anon().Send(t, req)
}

func TestKerberosNegotiate(t *testing.T) {
	t.Parallel()
	k := startKDC(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		port := strings.TrimPrefix(s.URL, "http://127.0.0.1:")
		url := "http://localhost:" + port + "/api/v1/auth/negotiate"

		// alice is a domain user (as ad-sync would create her); bob is a local account
		g := admin.Do(t, "POST", "/groups", map[string]any{"name": "Staff"}).Expect(t, 201).Map(t)
		admin.Do(t, "POST", "/groups/"+g["id"].(string)+"/members", map[string]any{"externalId": "S-1-5-21-1001", "login": "alice",
			"displayName": "Alice A", "email": "alice@core.test"}).Expect(t, 200)
		s.CreateUser(t, "bob", false)

		// no ticket: the challenge, no NTLM
		r := s.Anon().Do(t, "GET", "/auth/negotiate", nil).Expect(t, 401, "UNAUTHORIZED")
		if h := r.Header.Values("WWW-Authenticate"); len(h) != 1 || h[0] != "Negotiate" {
			t.Fatalf("challenge %q", h)
		}
		negotiateWith(t, s, "NTLM TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAGAbEdAAAADw==").Expect(t, 401)
		negotiateWith(t, s, "Negotiate TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAGAbEdAAAADw==").Expect(t, 401)

		// kinit, then curl --negotiate signs in; the cookie is a session
		kk := &kdc{dir: k.dir, keytab: k.keytab, env: append(append([]string{}, k.env...), "KRB5CCNAME=FILE:"+filepath.Join(t.TempDir(), "cc"))}
		kk.kinit(t, "alice", "alicepw", "1h")
		jar := filepath.Join(t.TempDir(), "jar")
		code, body := kk.curl(t, url, "-c", jar)
		if code != 200 || !strings.Contains(body, `"login":"alice"`) {
			t.Fatalf("negotiate: %d %s", code, body)
		}
		code, body = kk.curl(t, "http://localhost:"+port+"/api/v1/auth/me", "--no-negotiate", "-b", jar)
		if code != 200 || !strings.Contains(body, `"login":"alice"`) {
			jarText, _ := os.ReadFile(jar)
			t.Fatalf("session of the cookie: %d %s\n%s", code, body, jarText)
		}

		// a ticket for another service (host/localhost) is refused
		if code, body = kk.curl(t, url, "--service-name", "host"); code != 401 {
			t.Fatalf("ticket for host/localhost: %d %s", code, body)
		}

		// a principal whose login is a local account is refused
		kb := &kdc{dir: k.dir, keytab: k.keytab, env: append(append([]string{}, k.env...), "KRB5CCNAME=FILE:"+filepath.Join(t.TempDir(), "cc"))}
		kb.kinit(t, "bob", "bobpw", "1h")
		if code, body = kb.curl(t, url); code != 401 {
			t.Fatalf("bob (local account): %d %s", code, body)
		}

		// a replayed authenticator is refused
		tok := kk.captureToken(t)
		negotiateWith(t, s, tok).Expect(t, 200)
		negotiateWith(t, s, tok).Expect(t, 401, "UNAUTHORIZED")

		// an expired ticket is refused (lifetime 3 s, allowed skew 1 s)
		ke := &kdc{dir: k.dir, keytab: k.keytab, env: append(append([]string{}, k.env...), "KRB5CCNAME=FILE:"+filepath.Join(t.TempDir(), "cc"))}
		ke.kinit(t, "alice", "alicepw", "3s")
		old := ke.captureToken(t)
		time.Sleep(5 * time.Second)
		negotiateWith(t, s, old).Expect(t, 401, "UNAUTHORIZED")
	}, "CORE_KERBEROS_KEYTAB="+k.keytab, "CORE_KERBEROS_SPN=HTTP/localhost@"+kdcRealm, "CORE_KERBEROS_MAX_SKEW=1s")
}

func TestKerberosOffWithoutKeytab(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		s.Anon().Do(t, "GET", "/auth/negotiate", nil).Expect(t, 404, "NOT_FOUND")
		m := s.Anon().Do(t, "GET", "/auth/methods", nil).Expect(t, 200).Map(t)
		if m["negotiate"] != false || m["password"] != true || m["oidc"] != nil {
			t.Fatalf("methods %v", m)
		}
	})
}
