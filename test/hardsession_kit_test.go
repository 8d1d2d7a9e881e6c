package test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"coreportal/test/kit"
)

// userWithID creates a local user through the admin API and signs it in.
func userWithID(t *testing.T, s *kit.Server, login string) (*kit.Client, string) {
	t.Helper()
	return s.CreateUser(t, login, false)
}

// bearer is a client that sends tok as its bearer token.
func bearer(s *kit.Server, tok string) *kit.Client {
	return &kit.Client{S: s, Token: tok, HTTP: http.DefaultClient}
}

// loginFrom signs in as if from the client address addr (the test server
// trusts 127.0.0.1 as a proxy, so X-Forwarded-For names the client).
func loginFrom(t *testing.T, s *kit.Server, addr, login, password string) *kit.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/login",
		bytes.NewReader([]byte(`{"login":"`+login+`","password":"`+password+`"}`)))
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.Header.Set("X-Forwarded-For", addr)
	}
	return s.Anon().Send(t, req)
}

// runBinary runs a coreportal sub-command with env and returns its combined
// output and exit code.
func runBinary(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%v did not end:\n%s", args, out.String())
	}
	return "", -1
}
