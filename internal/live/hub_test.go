package live

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coreportal/internal/bus"
)

type sse struct {
	lines  chan string
	resp   *http.Response
	lastID string // the last "id:" line next skipped
}

func open(t *testing.T, url string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &sse{lines: make(chan string, 100), resp: resp}
	if resp.StatusCode != 200 {
		return s
	}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

// next returns the next non-empty line that is not the retry hint.
func (s *sse) next(t *testing.T, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatal("stream closed")
			}
			if id, ok := strings.CutPrefix(l, "id: "); ok {
				s.lastID = id
				continue
			}
			if l == "" || strings.HasPrefix(l, "retry:") {
				continue
			}
			return l
		case <-deadline:
			return ""
		}
	}
}

func serve(t *testing.T, h *Hub, canView func(context.Context, int64) bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ids []int64
		for _, s := range strings.Split(r.URL.Query().Get("ids"), ",") {
			var n int64
			for _, c := range s {
				n = n*10 + int64(c-'0')
			}
			ids = append(ids, n)
		}
		_ = h.Stream(w, r, Watch{ListID: r.URL.Query().Get("list"), IDs: ids, UserID: r.URL.Query().Get("user"), CanView: canView, Valid: validFor(r)})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// invalid holds the users whose principal no longer passes Valid.
var invalid sync.Map

func validFor(r *http.Request) func(context.Context) error {
	user := r.URL.Query().Get("user")
	return func(context.Context) error {
		if _, bad := invalid.Load(user); bad {
			return errors.New("signed out")
		}
		return nil
	}
}

func waitSubs(t *testing.T, h *Hub, n int) {
	t.Helper()
	for i := 0; i < 200 && h.Subscriptions() != n; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if h.Subscriptions() != n {
		t.Fatalf("%d subscriptions, want %d", h.Subscriptions(), n)
	}
}

func TestStreamDeliversWatchedVisibleItems(t *testing.T) {
	h := NewHub(bus.NewMemory())
	var hidden atomic.Int64
	hidden.Store(-1)
	srv := serve(t, h, func(_ context.Context, n int64) bool { return n != hidden.Load() })
	a := open(t, srv.URL+"?list=L1&ids=1,2")
	b := open(t, srv.URL+"?list=L1&ids=3")
	c := open(t, srv.URL+"?list=L2&ids=1")
	if ct := a.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	waitSubs(t, h, 2) // one bus subscription per list, not per client
	ctx := context.Background()
	item := map[string]any{"id": 2, "updated_at": "2026-01-01T00:00:00Z", "updated_by": "u1",
		"updated_by_user": map[string]any{"display_name": "Alice"}, "field_values": map[string]any{"f": "v"}}
	if err := h.PublishItem(ctx, "L1", 2, item); err != nil {
		t.Fatal(err)
	}
	if l := a.next(t, 2*time.Second); l != "event: item_updated" {
		t.Fatalf("event line %q", l)
	}
	data := a.next(t, time.Second)
	want := `data: {"listId":"L1","item":{"field_values":{"f":"v"},"id":2,"updated_at":"2026-01-01T00:00:00Z","updated_by":"u1","updated_by_user":{"display_name":"Alice"}}}`
	if data != want {
		t.Fatalf("data\n got %s\nwant %s", data, want)
	}
	if l := b.next(t, 200*time.Millisecond); l != "" {
		t.Fatalf("client of other ids got %q", l)
	}
	if l := c.next(t, 100*time.Millisecond); l != "" {
		t.Fatalf("client of other list got %q", l)
	}
	// the right is checked before each delivery
	hidden.Store(1)
	_ = h.PublishItem(ctx, "L1", 1, map[string]any{"id": 1})
	if l := a.next(t, 200*time.Millisecond); l != "" {
		t.Fatalf("hidden item delivered: %q", l)
	}
	_ = h.PublishItem(ctx, "L1", 2, map[string]any{"id": 2})
	if l := a.next(t, 2*time.Second); l != "event: item_updated" {
		t.Fatalf("visible item after hidden one: %q", l)
	}
	a.resp.Body.Close()
	b.resp.Body.Close()
	c.resp.Body.Close()
	waitSubs(t, h, 0)
}

func TestStreamPings(t *testing.T) {
	h := NewHub(bus.NewMemory())
	h.PingInterval = 50 * time.Millisecond
	srv := serve(t, h, nil)
	s := open(t, srv.URL+"?list=L&ids=1")
	for range 2 {
		if l := s.next(t, time.Second); l != ": ping" {
			t.Fatalf("got %q, want ping", l)
		}
	}
}

// A change published on instance A's Redis bus reaches a client of instance B.
func TestStreamAcrossInstancesThroughRedis(t *testing.T) {
	ra, err := bus.NewRedis("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	rb, err := bus.NewRedis("redis://127.0.0.1:6379/0")
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	a, b := NewHub(ra), NewHub(rb)
	srv := serve(t, b, nil)
	list := "list-" + time.Now().Format("150405.000000")
	s := open(t, srv.URL+"?list="+list+"&ids=5")
	waitSubs(t, b, 1)
	time.Sleep(100 * time.Millisecond) // SUBSCRIBE reaches Redis
	if err := a.PublishItem(context.Background(), list, 5, map[string]any{"id": 5}); err != nil {
		t.Fatal(err)
	}
	if l := s.next(t, 3*time.Second); l != "event: item_updated" {
		t.Fatalf("got %q", l)
	}
	if l := s.next(t, time.Second); l != `data: {"listId":"`+list+`","item":{"id":5}}` {
		t.Fatalf("data %q", l)
	}
}

func TestStreamUnavailableWithoutRedis(t *testing.T) {
	r, err := bus.NewRedis("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := NewHub(r)
	srv := serve(t, h, nil)
	s := open(t, srv.URL+"?list=L&ids=1")
	defer s.resp.Body.Close()
	if s.resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", s.resp.StatusCode)
	}
	body := make([]byte, 512)
	n, _ := s.resp.Body.Read(body)
	if !strings.Contains(string(body[:n]), `"UNAVAILABLE"`) {
		t.Fatalf("body %s", body[:n])
	}
	if h.Subscriptions() != 0 {
		t.Fatal("subscription kept after refusal")
	}
}

// proxy forwards loopback connections to Redis until cut.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// When Redis goes away under an open stream, the stream ends so that the
// client reconnects (503) and falls back to polling.
func TestStreamEndsWhenRedisGoesAway(t *testing.T) {
	p := startProxy(t, "127.0.0.1:6379")
	r, err := bus.NewRedis("redis://" + p.ln.Addr().String() + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := NewHub(r)
	h.HealthInterval = 100 * time.Millisecond
	srv := serve(t, h, nil)
	s := open(t, srv.URL+"?list=L&ids=1")
	if s.resp.StatusCode != 200 {
		t.Fatalf("status %d", s.resp.StatusCode)
	}
	if l := s.next(t, 300*time.Millisecond); l != "" { // healthy: the stream stays open and quiet
		t.Fatalf("unexpected line %q", l)
	}
	p.cut()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				if again := open(t, srv.URL+"?list=L&ids=1"); again.resp.StatusCode != 503 {
					t.Fatalf("reconnect: %d, want 503", again.resp.StatusCode)
				}
				return
			}
		case <-deadline:
			t.Fatal("stream still open 5 s after Redis went away")
		}
	}
}

func TestCloseStreamsEndsOpenStreams(t *testing.T) {
	h := NewHub(bus.NewMemory())
	srv := serve(t, h, nil)
	s := open(t, srv.URL+"?list=L&ids=1")
	waitSubs(t, h, 1)
	h.CloseStreams()
	select {
	case <-func() chan struct{} {
		c := make(chan struct{})
		go func() {
			for range s.lines {
			}
			close(c)
		}()
		return c
	}():
	case <-time.After(3 * time.Second):
		t.Fatal("stream still open after CloseStreams")
	}
	waitSubs(t, h, 0)
	if again := open(t, srv.URL+"?list=L&ids=1"); again.resp.StatusCode != 503 {
		t.Fatalf("stream after close: %d", again.resp.StatusCode)
	}
}

// A stream opened with an upper-case spelling of the list id gets the
// events published for the stored (lower-case) id.
func TestStreamListIDCaseInsensitive(t *testing.T) {
	h := NewHub(bus.NewMemory())
	srv := serve(t, h, func(context.Context, int64) bool { return true })
	const list = "0b9e2c1a-6f1d-4c3e-9a8b-7d6e5f4a3b2c"
	a := open(t, srv.URL+"?list="+strings.ToUpper(list)+"&ids=1")
	defer a.resp.Body.Close()
	waitSubs(t, h, 1)
	if err := h.PublishItem(context.Background(), list, 1, map[string]any{"id": 1}); err != nil {
		t.Fatal(err)
	}
	if l := a.next(t, 2*time.Second); l != "event: item_updated" {
		t.Fatalf("event line %q", l)
	}
}

// closed waits until the stream's body ends.
func (s *sse) closed(t *testing.T, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("stream still open")
		}
	}
}

func TestStreamEndsWhenThePrincipalFails(t *testing.T) {
	t.Run("before a delivery", func(t *testing.T) {
		h := NewHub(bus.NewMemory())
		srv := serve(t, h, nil)
		s := open(t, srv.URL+"?list=L&ids=1&user=ann")
		waitSubs(t, h, 1)
		invalid.Store("ann", true)
		defer invalid.Delete("ann")
		if err := h.PublishItem(context.Background(), "L", 1, map[string]any{"secret": 1}); err != nil {
			t.Fatal(err)
		}
		for {
			l, ok := <-s.lines
			if !ok {
				break
			}
			if strings.Contains(l, "secret") {
				t.Fatalf("delivered after the principal failed: %s", l)
			}
		}
		waitSubs(t, h, 0)
	})
	t.Run("on the periodic re-check", func(t *testing.T) {
		h := NewHub(bus.NewMemory())
		h.RecheckInterval = 50 * time.Millisecond
		srv := serve(t, h, nil)
		s := open(t, srv.URL+"?list=L&ids=1&user=bob")
		waitSubs(t, h, 1)
		invalid.Store("bob", true)
		defer invalid.Delete("bob")
		s.closed(t, 2*time.Second)
		if h.Streams() != 0 {
			t.Fatalf("%d streams counted after the end", h.Streams())
		}
	})
}

func TestStreamCaps(t *testing.T) {
	h := NewHub(bus.NewMemory())
	h.MaxStreams, h.MaxStreamsPerUser = 3, 2
	srv := serve(t, h, nil)
	a1 := open(t, srv.URL+"?list=L&ids=1&user=a")
	open(t, srv.URL+"?list=L&ids=1&user=a")
	if s := open(t, srv.URL+"?list=L&ids=1&user=a"); s.resp.StatusCode != 429 {
		t.Fatalf("third stream of one user: %d", s.resp.StatusCode)
	}
	open(t, srv.URL+"?list=L&ids=1&user=b")
	if s := open(t, srv.URL+"?list=L&ids=1&user=c"); s.resp.StatusCode != 429 {
		t.Fatalf("stream past the instance cap: %d", s.resp.StatusCode)
	}
	a1.resp.Body.Close()
	deadline := time.Now().Add(2 * time.Second)
	for h.Streams() != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := open(t, srv.URL+"?list=L&ids=1&user=c"); s.resp.StatusCode != 200 {
		t.Fatalf("stream after one closed: %d", s.resp.StatusCode)
	}
}
