package test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/blob/blobtest"
	"coreportal/test/kit"
)

// redisRelay is a TCP proxy to Redis that the test cuts and restores on the
// same address: one instance's bus connection, not Redis itself, goes away.
type redisRelay struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func startRedisRelay(t *testing.T, target string) *redisRelay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &redisRelay{addr: ln.Addr().String(), target: target}
	r.serve(ln)
	t.Cleanup(r.cut)
	return r
}

func (r *redisRelay) serve(ln net.Listener) {
	r.mu.Lock()
	r.ln = ln
	r.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", r.target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, up)
			r.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

func (r *redisRelay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		r.ln.Close()
		r.ln = nil
	}
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

func (r *redisRelay) restore(t *testing.T) {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	r.serve(ln)
}

// sseLines opens a live stream and returns its lines.
func sseLines(t *testing.T, s *kit.Server, c *kit.Client, path string) <-chan string {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1"+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	lines := make(chan string, 1000)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// TestScaleOutResilience is the short form of the scale-out probe: two api
// instances and a worker over PostgreSQL, Redis and an S3-compatible server.
// One instance's Redis connection is cut: its saves reach a watcher on the
// other instance within 5 s of the bus coming back. A create retried with
// the same Idempotency-Key after its instance was killed exists once. S3
// stopped: downloads answer 503 and /ready answers within a second naming
// blobs. (bench/scaleout runs the long form under load.)
func TestScaleOutResilience(t *testing.T) {
	redis := strings.TrimPrefix(redisURL(t), "redis://")
	redisHost := strings.SplitN(redis, "/", 2)[0]
	var pg kit.Backend
	for _, b := range kit.Backends(t) {
		if b.Name == "postgres" {
			pg = b
		}
	}
	if pg.Name == "" {
		t.Skip("PostgreSQL not configured")
	}
	s3 := blobtest.StartS3(t)
	relay := startRedisRelay(t, redisHost)
	dbURL, dir := pg.DatabaseURL(t), t.TempDir()
	env := append(s3.Env(), "CORE_JOB_LEASE=3s", "CORE_JOB_HEARTBEAT=1s")
	a := kit.StartWith(t, dbURL, dir, "api", append(env, "CORE_BUS_URL=redis://"+relay.addr+"/0")...)
	b := kit.StartWith(t, dbURL, dir, "api", append(env, "CORE_BUS_URL=redis://"+redis)...)
	kit.StartWith(t, dbURL, dir, "worker", append(env, "CORE_BUS_URL=redis://"+redis)...)

	f := newListFixture(t, b, "scale")
	f.create(t, f.admin, map[string]any{"title": "watched"})
	onA, onB := a.Admin(t), b.Admin(t)
	lines := sseLines(t, b, onB, f.path("/items/live?ids=1"))
	time.Sleep(300 * time.Millisecond) // the subscription reaches Redis

	// one instance's Redis connection is cut: its saves are held, then delivered
	relay.cut()
	for _, v := range []string{"cut-1", "cut-2", "cut-3"} {
		onA.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": v}}).Expect(t, 200)
	}
	time.Sleep(2 * time.Second)
	relay.restore(t)
	back := time.Now()
	got := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for len(got) < 3 {
		select {
		case l := <-lines:
			for _, v := range []string{"cut-1", "cut-2", "cut-3"} {
				if strings.HasPrefix(l, "data:") && strings.Contains(l, `"`+v+`"`) {
					got[v] = true
				}
			}
		case <-deadline:
			t.Fatalf("events saved during the cut that reached the watcher within 5 s: %v", got)
		}
	}
	t.Logf("held events delivered %s after the bus came back", time.Since(back).Round(time.Millisecond))

	// a create answered on A, which is then killed: the retry on B answers it again
	body := map[string]any{"fieldValues": map[string]any{"title": "exactly-once"}}
	postKeyed(t, onA, f.path("/items"), "cluster-key", body).Expect(t, 201)
	a.Kill()
	postKeyed(t, onB, f.path("/items"), "cluster-key", body).Expect(t, 201)
	items, _ := f.list(t, onB, map[string]string{"limit": "100"})
	n := 0
	for _, it := range items {
		raw, _ := json.Marshal(it)
		if strings.Contains(string(raw), "exactly-once") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d items of a create retried with its key", n)
	}

	// the blob store stops: 503 at once, ready within a second naming blobs
	lib := newLibFixture(t, b, "scalelib")
	file := lib.put(t, onB, "", "kept.txt", []byte("kept bytes"), 201)
	s3.Close()
	time.Sleep(1600 * time.Millisecond)
	began := time.Now()
	r := b.Anon().Do(t, "GET", b.URL+"/ready", nil).Expect(t, 503, "UNAVAILABLE")
	if took := time.Since(began); took > time.Second || !strings.Contains(string(r.Raw), `"blobs"`) {
		t.Fatalf("ready during the S3 outage: %s after %s", r.Raw, took)
	}
	if resp, _ := lib.get(t, onB, num(file), nil); resp.StatusCode != 503 {
		t.Fatalf("download during the S3 outage: %d", resp.StatusCode)
	}
}
