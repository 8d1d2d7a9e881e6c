package bus

import (
	"errors"
	"testing"
	"time"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(0, 0)
	b := &breaker{name: "test bus", now: func() time.Time { return now }}
	fail := errors.New("connection refused")
	steps := []struct {
		advance time.Duration
		allow   bool  // expected answer of allow()
		result  error // outcome reported when allowed
	}{
		{0, true, nil},  // closed: calls pass
		{0, true, fail}, // first failure opens it (back-off 1 s)
		{0, false, nil}, // open: fail fast
		{500 * time.Millisecond, false, nil},
		{500 * time.Millisecond, true, fail}, // back-off passed: one probe, fails (back-off 2 s)
		{time.Second, false, nil},
		{time.Second, true, nil}, // probe succeeds: closed again
		{0, true, nil},
		{0, true, fail}, // a new outage starts at the minimum back-off again
		{999 * time.Millisecond, false, nil},
		{time.Millisecond, true, nil},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		got := b.allow()
		if got != s.allow {
			t.Fatalf("step %d: allow() = %v, want %v", i, got, s.allow)
		}
		if got {
			b.result(s.result)
		}
	}
	b2 := &breaker{name: "x", now: func() time.Time { return now }}
	for range 20 {
		b2.result(fail)
	}
	if b2.backoff != breakerMax {
		t.Fatalf("back-off grows to %s, want the ceiling %s", b2.backoff, breakerMax)
	}
}

// A probe in flight lets no second call through.
func TestBreakerOneProbe(t *testing.T) {
	now := time.Unix(0, 0)
	b := &breaker{name: "x", now: func() time.Time { return now }}
	b.result(errors.New("down"))
	now = now.Add(2 * time.Second)
	if !b.allow() || b.allow() {
		t.Fatal("exactly one probe must pass after the back-off")
	}
}
