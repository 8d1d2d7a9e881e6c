package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// cliResult is one run of the binary.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs the binary with args and env added to a clean configuration
// (no DATABASE_URL, no data folder: flags or env must give them).
func runCLI(t *testing.T, stdin string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), args...)
	cmd.Env = append(os.Environ(), append([]string{"DATABASE_URL=", "CORE_DATA_DIR=" + filepath.Join(t.TempDir(), "unused"), "CORE_LOG_LEVEL=warn"}, env...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return cliResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// expectOneLineError checks a failed run: exit status, one human line on
// stderr, nothing (and no JSON) on stdout.
func expectOneLineError(t *testing.T, r cliResult, code int, want string) {
	t.Helper()
	if r.code != code || strings.Count(strings.TrimRight(r.stderr, "\n"), "\n") != 0 || !strings.Contains(r.stderr, want) ||
		strings.Contains(r.stderr, "{") || strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("want exit %d and one line with %q on stderr, got exit %d\nstderr: %q\nstdout: %q", code, want, r.code, r.stderr, r.stdout)
	}
}

// TestCLIHelp: help, --help, -h and every command's -h print help on stdout
// and exit 0; each command's help names its own flags and the configuration
// flags; errors are one line on stderr with a non-zero exit.
func TestCLIHelp(t *testing.T) {
	t.Parallel()
	commands := map[string][]string{
		"serve": nil, "api": nil, "worker": nil, "migrate": nil, "version": nil, "backup-runner": nil,
		"user create":       {"-login", "-password", "-display-name", "-email", "-admin"},
		"user set-password": {"-login", "-password"},
		"user list":         {"-json"},
		"user disable":      {"-login"},
		"backup":            {"-to"},
		"restore":           {"-from"},
		"license activate":  {"-key-file"},
		"license status":    nil,
		"update-runner":     {"-serve"},
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}} {
		r := runCLI(t, "", nil, args...)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "usage: coreportal") || !strings.Contains(r.stdout, "--data-dir") {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
		}
		for name := range commands {
			if !strings.Contains(r.stdout, "  "+name+" ") {
				t.Fatalf("%v does not list %q:\n%s", args, name, r.stdout)
			}
		}
	}
	for name, flags := range commands {
		for _, args := range [][]string{append(strings.Fields(name), "-h"), append(strings.Fields(name), "--help"), append([]string{"help"}, strings.Fields(name)...)} {
			r := runCLI(t, "", nil, args...)
			if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "usage: coreportal "+name) {
				t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
			}
			for _, f := range append(flags, "-data-dir", "-database-url", "-bus-url", "-addr") {
				if !strings.Contains(r.stdout, "  "+f+" ") && !strings.Contains(r.stdout, "  "+f+"\n") {
					t.Fatalf("%v does not name flag %s:\n%s", args, f, r.stdout)
				}
			}
		}
	}
	for _, group := range []string{"user", "license"} {
		r := runCLI(t, "", nil, group, "-h")
		if r.code != 0 || !strings.Contains(r.stdout, group+" ") {
			t.Fatalf("%s -h: exit %d %s %s", group, r.code, r.stdout, r.stderr)
		}
	}

	expectOneLineError(t, runCLI(t, "", nil, "frobnicate"), 2, `unknown command "frobnicate"`)
	expectOneLineError(t, runCLI(t, "", nil, "user", "disable"), 2, "--login is required")
	expectOneLineError(t, runCLI(t, "", nil, "user", "list", "--no-such-flag"), 2, "no-such-flag")
	expectOneLineError(t, runCLI(t, "", nil, "backup"), 2, "--to FILE is required")
	expectOneLineError(t, runCLI(t, "", []string{"CORE_ADDR=nonsense", "CORE_LOG_LEVEL=loud"}, "serve"), 2, "CORE_ADDR")
	// a command that fails while running: one line, exit 1, no JSON log line
	expectOneLineError(t, runCLI(t, "", nil, "user", "disable", "--login", "nobody"), 1, `no user with login "nobody"`)

	r := runCLI(t, "", nil, "version")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 4 || strings.TrimSpace(lines[0]) == "" || !strings.HasPrefix(lines[1], "commit:") ||
		!strings.HasPrefix(lines[2], "built:") || !strings.Contains(lines[3], "go1.") {
		t.Fatalf("version: %d %q", r.code, r.stdout)
	}
}

// TestCLIVersionStamp: the commit and build date given by -ldflags are printed.
func TestCLIVersionStamp(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "coreportal")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=9.8.7 -X main.commit=0123abc -X main.buildDate=2026-11-27T10:00:00Z", "-o", bin, "./cmd/coreportal")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "9.8.7\n") || !strings.Contains(string(out), "0123abc") || !strings.Contains(string(out), "2026-11-27T10:00:00Z") {
		t.Fatalf("version: %v %q", err, out)
	}
}

type cliUser struct {
	Login    string `json:"login"`
	IsActive bool   `json:"is_active"`
	IsAdmin  bool   `json:"is_core_admin"`
}

func cliUsers(t *testing.T, flags []string) map[string]cliUser {
	t.Helper()
	r := runCLI(t, "", nil, append([]string{"user", "list", "--json"}, flags...)...)
	var list []cliUser
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil {
		t.Fatalf("user list --json: %d %s %s", r.code, r.stdout, r.stderr)
	}
	out := map[string]cliUser{}
	for _, u := range list {
		out[u.Login] = u
	}
	return out
}

// TestCLIUsersAndBackup: user create, list and disable reach the running
// portal's database through the configuration flags; a disabled user's
// session ends; backup --to writes, while the portal runs, an archive that
// restore --from puts into a fresh database.
func TestCLIUsersAndBackup(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			s := kit.Start(t, b)
			flags := []string{"--data-dir", s.DataDir, "--database-url", s.DBURL}
			r := runCLI(t, "", nil, append([]string{"user", "create", "--login", "jane", "--password", "jane-password-1", "--display-name", "Jane Doe"}, flags...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "created user jane") {
				t.Fatalf("user create: %d %s %s", r.code, r.stdout, r.stderr)
			}
			jane := s.Login(t, "jane", "jane-password-1")
			jane.Do(t, "GET", "/auth/me", nil).Expect(t, 200)

			table := runCLI(t, "", nil, append([]string{"user", "list"}, flags...)...)
			if table.code != 0 || !strings.Contains(table.stdout, "LOGIN") || !strings.Contains(table.stdout, "Jane Doe") || strings.Contains(table.stdout, "core-system") {
				t.Fatalf("user list: %d %s %s", table.code, table.stdout, table.stderr)
			}
			if u := cliUsers(t, flags); !u["jane"].IsActive || !u["admin"].IsAdmin {
				t.Fatalf("users %v", u)
			}

			r = runCLI(t, "", nil, append([]string{"user", "disable", "--login", "jane"}, flags...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "jane deactivated") {
				t.Fatalf("user disable: %d %s %s", r.code, r.stdout, r.stderr)
			}
			if cliUsers(t, flags)["jane"].IsActive {
				t.Fatal("jane still active")
			}
			deadline := time.Now().Add(15 * time.Second) // the server's account cache lives 10 s without a shared bus
			for jane.Do(t, "GET", "/auth/me", nil).Status != 401 {
				if time.Now().After(deadline) {
					t.Fatal("the disabled user's session still works")
				}
				time.Sleep(250 * time.Millisecond)
			}
			s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "jane", "password": "jane-password-1"}).Expect(t, 401)
			expectOneLineError(t, runCLI(t, "", nil, append([]string{"user", "disable", "--login", "admin"}, flags...)...), 1, "bootstrap administrator")

			file := filepath.Join(t.TempDir(), "portal.tar")
			key := "CORE_BACKUP_KEY=cli-test-backup-key-0123456789"
			r = runCLI(t, "", []string{key}, append([]string{"backup", "--to", file}, flags...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "backup written to "+file) {
				t.Fatalf("backup: %d %s %s", r.code, r.stdout, r.stderr)
			}
			s.Admin(t).Do(t, "GET", "/auth/me", nil).Expect(t, 200) // the portal kept running
			for _, action := range []string{"user.update", "backup.run"} {
				var rows []map[string]any
				s.Admin(t).Do(t, "GET", "/admin/audit?actor=cli&action="+action, nil).Expect(t, 200).Into(t, &rows)
				if len(rows) != 1 || rows[0]["actorLogin"] != "cli" {
					t.Fatalf("audit of %s by the command line: %v", action, rows)
				}
			}

			to := []string{"--data-dir", t.TempDir(), "--database-url", b.DatabaseURL(t)}
			r = runCLI(t, "", []string{key}, append([]string{"restore", "--from", file}, to...)...)
			if r.code != 0 || !strings.Contains(r.stdout, "signature: verified") || !strings.Contains(r.stdout, "administrators in the archive: admin") {
				t.Fatalf("restore: %d %s %s", r.code, r.stdout, r.stderr)
			}
			if u := cliUsers(t, to); u["jane"].Login != "jane" || u["jane"].IsActive {
				t.Fatalf("restored users %v", u)
			}
		})
	}
}

// TestBootstrapPasswordFile: a generated bootstrap password is written to
// {data_dir}/bootstrap-password (0600) and its path logged, never the
// password itself.
func TestBootstrapPasswordFile(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			s := kit.Start(t, b, "SEED_ADMIN_PASSWORD=")
			path := filepath.Join(s.DataDir, "bootstrap-password")
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("bootstrap password file: %v %v", st, err)
			}
			raw, _ := os.ReadFile(path)
			pw := strings.TrimSpace(string(raw))
			if len(pw) < 12 || strings.Contains(s.Logs(), pw) || !strings.Contains(s.Logs(), path) {
				t.Fatalf("password %q (in log: %v), path in log: %v", pw, strings.Contains(s.Logs(), pw), strings.Contains(s.Logs(), path))
			}
			s.Login(t, "admin", pw).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
		})
	}
}
