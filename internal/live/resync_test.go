package live

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/bus"
)

// relay is a TCP proxy to Redis that can be cut and restored on the same address.
type relay struct {
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func startRelay(t *testing.T, target string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: ln.Addr().String(), target: target}
	r.serve(ln)
	t.Cleanup(r.cut)
	return r
}

func (r *relay) serve(ln net.Listener) {
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

func (r *relay) cut() {
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

func (r *relay) restore(t *testing.T) {
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	r.serve(ln)
}

func openWith(t *testing.T, url, lastID string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &sse{lines: make(chan string, 100), resp: resp}
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s
}

// TestHeldEventsReachWatchersAfterTheBusReturns: changes saved on an
// instance whose Redis connection is cut are published, in order, once it
// is back; the instance's own streams get a resync for what they missed.
func TestHeldEventsReachWatchersAfterTheBusReturns(t *testing.T) {
	rl := startRelay(t, "127.0.0.1:6379")
	ra, err := bus.NewRedis("redis://" + rl.addr + "/0")
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
	a.HealthInterval = time.Hour // the stream on a stays open through the cut
	pub := NewPublisher(a)
	pub.Retry = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go pub.Run(ctx)
	list := "held-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	onB := open(t, serve(t, b, nil).URL+"?list="+list+"&ids=1,2,3,4,5")
	onA := open(t, serve(t, a, nil).URL+"?list="+list+"&ids=1")
	waitSubs(t, b, 1)
	waitSubs(t, a, 1)
	time.Sleep(200 * time.Millisecond)

	rl.cut()
	for n := int64(1); n <= 5; n++ {
		pub.Enqueue(list, n, map[string]any{"n": n})
	}
	time.Sleep(time.Second)
	rl.restore(t)
	for n := 1; n <= 5; n++ {
		if l := onB.next(t, 8*time.Second); l != "event: item_updated" {
			t.Fatalf("event %d on the healthy instance: %q", n, l)
		}
		if l := onB.next(t, time.Second); !strings.Contains(l, `"item":{"n":`+strconv.Itoa(n)+`}`) {
			t.Fatalf("event %d out of order: %q", n, l)
		}
	}
	// the cut instance's stream: a resync (it may also get its own events)
	deadline := time.Now().Add(8 * time.Second)
	for {
		l := onA.next(t, time.Until(deadline))
		if l == "event: resync" {
			break
		}
		if l == "" {
			t.Fatal("no resync on the stream of the instance whose bus was cut")
		}
	}
}

// TestLastEventIDReplay: a stream reconnecting with Last-Event-ID gets the
// events of its items after that id; an id outside the window gets resync.
func TestLastEventIDReplay(t *testing.T) {
	h := NewHub(bus.NewMemory())
	h.Linger = time.Minute
	srv := serve(t, h, nil)
	first := open(t, srv.URL+"?list=L&ids=1,2")
	waitSubs(t, h, 1)
	for n := int64(1); n <= 3; n++ {
		if err := h.PublishItem(context.Background(), "L", n, map[string]any{"n": n}); err != nil {
			t.Fatal(err)
		}
	}
	first.next(t, time.Second)
	first.next(t, time.Second)
	first.next(t, 200*time.Millisecond) // passes the id line
	if first.lastID == "" {
		t.Fatal("the event carries no id")
	}
	first.resp.Body.Close()
	time.Sleep(100 * time.Millisecond)

	again := openWith(t, srv.URL+"?list=L&ids=1,2", first.lastID)
	if l := again.next(t, 2*time.Second); l != "event: item_updated" {
		t.Fatalf("replay: %q", l)
	}
	if l := again.next(t, time.Second); !strings.Contains(l, `"item":{"n":2}`) {
		t.Fatalf("replayed %q, want item 2 (item 3 is not watched)", l)
	}
	unknown := openWith(t, srv.URL+"?list=L&ids=1", "nobody-42")
	if l := unknown.next(t, 2*time.Second); l != "event: resync" {
		t.Fatalf("unknown id: %q", l)
	}
}
