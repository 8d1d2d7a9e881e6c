package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
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

// loginWith signs in with extra request headers (X-Forwarded-For names the
// client address when the server trusts 127.0.0.1 as a proxy).
func loginWith(t *testing.T, s *kit.Server, headers map[string]string, login, password string) *kit.Response {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"login": login, "password": password})
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/login", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return s.Anon().Send(t, req)
}

// loginFrom signs in as if from the client address addr.
func loginFrom(t *testing.T, s *kit.Server, addr, login, password string) *kit.Response {
	t.Helper()
	return loginWith(t, s, map[string]string{"X-Forwarded-For": addr}, login, password)
}

// tokenOf returns the token of a successful sign-in answer.
func tokenOf(t *testing.T, r *kit.Response) string {
	t.Helper()
	r.Expect(t, 200)
	return r.Map(t)["token"].(string)
}

// eventually polls cond every 100 ms until it holds or within passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
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

// liveStream is an open items/live stream.
type liveStream struct {
	status int
	lines  chan string
	close  func()
}

// openLive opens GET path (an items/live URL under /api/v1) with a bearer token.
func openLive(t *testing.T, s *kit.Server, token, path string) *liveStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1"+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ls := &liveStream{status: resp.StatusCode, lines: make(chan string, 100), close: func() { cancel(); resp.Body.Close() }}
	go func() {
		defer close(ls.lines)
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			ls.lines <- sc.Text()
		}
	}()
	return ls
}

// endsWithin waits for the stream to end and fails if it delivered data first.
func (ls *liveStream) endsWithin(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-ls.lines:
			if !ok {
				return
			}
			if strings.HasPrefix(l, "data:") {
				t.Fatalf("stream delivered after the principal failed: %s", l)
			}
		case <-deadline:
			t.Fatal("stream still open")
		}
	}
}
