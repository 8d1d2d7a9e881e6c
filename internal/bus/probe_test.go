package bus

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// cutRelay is a TCP proxy to Redis that can be cut and restored on the same address.
type cutRelay struct {
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newCutRelay(t *testing.T, target string) *cutRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &cutRelay{addr: ln.Addr().String(), target: target}
	r.serve(ln)
	t.Cleanup(r.cut)
	return r
}

func (r *cutRelay) serve(ln net.Listener) {
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

func (r *cutRelay) cut() {
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

func (r *cutRelay) restore(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	r.serve(ln)
}

// TestBreakerClosesSoonAfterRedisReturns: however long the outage was (and
// however far its back-off grew), publishing works again within about a
// second of Redis answering, without a caller having to probe.
func TestBreakerClosesSoonAfterRedisReturns(t *testing.T) {
	rl := newCutRelay(t, "127.0.0.1:6379")
	r, err := NewRedis("redis://" + rl.addr + "/0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Healthy(ctx); err != nil {
		t.Skipf("redis at 127.0.0.1:6379: %v", err)
	}
	rl.cut()
	// failures of a long outage: the back-off grows to its maximum
	for i := 0; i < 8; i++ {
		if err := r.Healthy(ctx); err == nil {
			t.Fatal("healthy through a cut relay")
		}
	}
	if err := r.Publish(ctx, "probe.test", []byte("x")); err == nil {
		t.Fatal("published through a cut relay")
	}
	rl.restore(t)
	back := time.Now()
	for r.Publish(ctx, "probe.test", []byte("x")) != nil {
		if time.Since(back) > 2*time.Second {
			t.Fatalf("publish still refused %s after redis came back", time.Since(back).Round(time.Millisecond))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("publishing again %s after redis came back", time.Since(back).Round(time.Millisecond))
}
