package cluster

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Relay is a loopback TCP proxy to Redis that a test cuts and restores on
// the same address: one instance's bus connection, not Redis itself, goes away.
type Relay struct {
	Addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

// StartRelay listens on a free loopback port and forwards to target (host:port).
func StartRelay(t testing.TB, target string) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("relay: %v", err)
	}
	r := &Relay{Addr: ln.Addr().String(), target: target}
	r.serve(ln)
	t.Cleanup(r.Cut)
	return r
}

func (r *Relay) serve(ln net.Listener) {
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

// Cut closes the listener and every relayed connection.
func (r *Relay) Cut() {
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

// Restore listens on the same address again.
func (r *Relay) Restore(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", r.Addr)
	if err != nil {
		t.Fatalf("relay restore: %v", err)
	}
	r.serve(ln)
}
