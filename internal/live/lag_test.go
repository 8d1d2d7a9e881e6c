package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"coreportal/internal/bus"
)

// TestSlowStreamGetsResyncForWhatItsBufferDropped: a stream that falls
// behind (a burst larger than its buffer, as when the events held during a
// bus outage are published at once) gets every event or, after those it
// kept, a resync: it never misses events silently.
func TestSlowStreamGetsResyncForWhatItsBufferDropped(t *testing.T) {
	h := NewHub(bus.NewMemory())
	h.ClientBuffer = 4
	gate := make(chan struct{})
	slow := func(context.Context, int64) bool { <-gate; return true }
	s := open(t, serve(t, h, slow).URL+"?list=L&ids=1")
	waitSubs(t, h, 1)
	const burst = 20
	for n := 1; n <= burst; n++ {
		if err := h.PublishItem(context.Background(), "L", 1, map[string]any{"n": n}); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			time.Sleep(100 * time.Millisecond) // the stream takes it and waits in canView
		}
	}
	close(gate)
	got := 0
	for {
		l := s.next(t, 3*time.Second)
		switch {
		case l == "event: resync":
			if h.Dropped() == 0 {
				t.Fatal("resync without a dropped event")
			}
			t.Logf("%d of %d events, then a resync", got, burst)
			return
		case strings.HasPrefix(l, "data:"):
			if got++; got == burst {
				return
			}
		case l == "":
			t.Fatalf("%d of %d events and no resync (dropped %d)", got, burst, h.Dropped())
		}
	}
}
