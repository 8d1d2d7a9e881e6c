package test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"coreportal/test/kit"
)

// forEachBackendParallel runs fn per backend in parallel subtests, each with
// its own server started with env.
func forEachBackendParallel(t *testing.T, fn func(t *testing.T, s *kit.Server), env ...string) {
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, kit.Start(t, b, env...))
		})
	}
}

// keepAlive is a client that holds one connection and counts how many
// requests reused it.
type keepAlive struct {
	*kit.Client
	conns  atomic.Int64 // new connections opened
	reused atomic.Int64
}

func newKeepAlive(c *kit.Client) *keepAlive {
	k := &keepAlive{}
	tr := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, IdleConnTimeout: time.Minute}
	k.Client = &kit.Client{S: c.S, Token: c.Token, HTTP: &http.Client{Transport: traced{tr, k}}}
	return k
}

type traced struct {
	rt http.RoundTripper
	k  *keepAlive
}

func (t traced) RoundTrip(req *http.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if info.Reused {
			t.k.reused.Add(1)
		} else {
			t.k.conns.Add(1)
		}
	}}
	return t.rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

// rawConn opens a TCP connection to the server.
func rawConn(t *testing.T, s *kit.Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readAnswer reads one HTTP answer from c (or the error that ended the connection).
func readAnswer(c net.Conn, within time.Duration) (*http.Response, string, error) {
	_ = c.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

// countLogs counts the log lines of s that contain every one of parts.
func countLogs(s *kit.Server, parts ...string) int {
	n := 0
	for _, line := range strings.Split(s.Logs(), "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				ok = false
				break
			}
		}
		if ok && line != "" {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
