package auth

import (
	"sync"
	"time"
)

// Throttle counts failed sign-ins per key (login, address) in a fixed window.
// It lives in memory: each instance throttles on its own.
type Throttle struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	hits   map[string]*window
}

type window struct {
	start time.Time
	count int
}

// NewThrottle allows limit failures per key within window.
func NewThrottle(limit int, win time.Duration) *Throttle {
	return &Throttle{limit: limit, window: win, now: time.Now, hits: map[string]*window{}}
}

// Take reserves one attempt for key and reports whether it is allowed. The
// check and the count are one step, so parallel attempts cannot all slip
// through before the first failure is recorded; a successful attempt gives
// its reservation back with Refund or Reset.
func (t *Throttle) Take(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.hits) > 100_000 {
		t.sweep(now)
	}
	w := t.hits[key]
	if w == nil || now.Sub(w.start) >= t.window {
		t.hits[key] = &window{start: now, count: 1}
		return true
	}
	if w.count >= t.limit {
		return false
	}
	w.count++
	return true
}

// Refund gives back one reservation of key.
func (t *Throttle) Refund(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.hits[key]; w != nil && w.count > 0 {
		w.count--
	}
}

// Reset forgets key (after a successful sign-in).
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	delete(t.hits, key)
	t.mu.Unlock()
}

func (t *Throttle) sweep(now time.Time) {
	for k, w := range t.hits {
		if now.Sub(w.start) >= t.window {
			delete(t.hits, k)
		}
	}
}
