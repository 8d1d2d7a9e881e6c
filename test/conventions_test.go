package test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/test/kit"
)

func TestConventions(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		t.Run("health and version", func(t *testing.T) {
			s.Anon().Do(t, "GET", "/health", nil).Expect(t, 200)
			v := adm.Do(t, "GET", "/system/version", nil).Expect(t, 200).Map(t)
			if v["version"] == "" {
				t.Fatalf("version %v", v)
			}
			s.Anon().Do(t, "GET", "/system/version", nil).Expect(t, 401)
		})
		t.Run("unknown routes and methods answer 404 in the envelope", func(t *testing.T) {
			for _, p := range []struct{ m, p string }{{"GET", "/nope"}, {"DELETE", "/auth/me"}, {"GET", "/api/v2/x"}} {
				r := adm.Do(t, p.m, p.p, nil).Expect(t, 404, "NOT_FOUND")
				if r.Success {
					t.Fatal("success on 404")
				}
			}
		})
		t.Run("request id is echoed or generated", func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL+"/health", nil)
			req.Header.Set("X-Request-Id", "abc-123")
			if r := s.Anon().Send(t, req); r.Header.Get("X-Request-Id") != "abc-123" {
				t.Fatalf("request id %q", r.Header.Get("X-Request-Id"))
			}
			req, _ = http.NewRequest("GET", s.URL+"/health", nil)
			req.Header.Set("X-Request-Id", "bad id with spaces")
			if r := s.Anon().Send(t, req); len(r.Header.Get("X-Request-Id")) != 24 {
				t.Fatalf("generated id %q", r.Header.Get("X-Request-Id"))
			}
		})
		t.Run("oversized body gives 413", func(t *testing.T) {
			big := `{"login":"` + strings.Repeat("a", 2<<20) + `","password":"x"}`
			s.Anon().Do(t, "POST", "/auth/login", big).Expect(t, 413, "PAYLOAD_TOO_LARGE")
		})
		t.Run("OpenAPI document and reference page", func(t *testing.T) {
			resp, err := http.Get(s.URL + "/api/v1/openapi.json")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for _, want := range []string{`"openapi":"3.1.0"`, `/api/v1/auth/login`, `/api/v1/admin/users/{id}`, `VALIDATION_ERROR`} {
				if !strings.Contains(string(body), want) {
					t.Errorf("openapi.json lacks %s", want)
				}
			}
			checkReference(t, s)
		})
	})
}

// TestLicenceReadOnly ages the trial past 30 days and checks that writes
// answer 423 while reads and sign-in keep working.
func TestLicenceReadOnly(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dir := b.DatabaseURL(t), t.TempDir()
			s := kit.StartWith(t, dbURL, dir, "serve")
			s.Admin(t).Do(t, "POST", "/admin/users", map[string]any{"login": "early", "password": "password-1"}).Expect(t, 201)
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(context.Background(), dbURL, filepath.Join(dir, "core.db"))
			if err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-31 * 24 * time.Hour).UTC().Format(time.RFC3339)
			if _, err := db.W(context.Background()).ExecContext(context.Background(), "UPDATE settings SET value = ? WHERE key = 'first_start_at'", old); err != nil {
				t.Fatal(err)
			}
			db.Close()

			s = kit.StartWith(t, dbURL, dir, "serve")
			adm := s.Admin(t)
			adm.Do(t, "GET", "/admin/users", nil).Expect(t, 200)
			adm.Do(t, "POST", "/admin/users", map[string]any{"login": "late", "password": "password-1"}).Expect(t, 423, "LICENSE_READ_ONLY")
			adm.Do(t, "POST", "/auth/logout", nil).Expect(t, 200)
		})
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	s := kit.Start(t, kit.Backends(t)[0])
	s.Admin(t).Do(t, "GET", "/auth/me", nil).Expect(t, 200)
	if err := s.Stop(); err != nil {
		t.Fatalf("exit after SIGINT: %v\n%s", err, s.Logs())
	}
	if !strings.Contains(s.Logs(), "stopped") {
		t.Fatalf("no orderly stop in log:\n%s", s.Logs())
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	bin := kit.Binary(t)
	dir := t.TempDir()
	run := func(stdin string, env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), append([]string{"CORE_DATA_DIR=" + dir, "DATABASE_URL=", "SEED_ADMIN_PASSWORD=" + kit.AdminPassword}, env...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("", nil, "version"); err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("version: %q %v", out, err)
	}
	if out, err := run("", nil, "migrate"); err != nil {
		t.Fatalf("migrate: %s %v", out, err)
	}
	if out, err := run("", nil, "user", "create", "--login", "cli-user", "--password", "cli-password", "--admin"); err != nil || !strings.Contains(out, "created user cli-user") {
		t.Fatalf("user create: %s %v", out, err)
	}
	if out, err := run("piped-password\n", nil, "user", "set-password", "--login", "cli-user"); err != nil {
		t.Fatalf("set-password: %s %v", out, err)
	}
	out, err := run("", []string{"CORE_ADDR=nonsense", "CORE_LOG_LEVEL=loud"}, "serve")
	if err == nil || !strings.Contains(out, "CORE_ADDR") || !strings.Contains(out, "CORE_LOG_LEVEL") {
		t.Fatalf("bad config accepted: %s %v", out, err)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("bad config exit: %v", err)
	}
	if _, err := run("", nil, "frobnicate"); err == nil {
		t.Fatal("unknown command accepted")
	}
	s := kit.StartWith(t, "", dir, "serve")
	s.Login(t, "cli-user", "piped-password").Do(t, "GET", "/admin/users", nil).Expect(t, 200)
}
