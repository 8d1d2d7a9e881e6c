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

// Blocked reports whether key has used up its failures.
func (t *Throttle) Blocked(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.hits[key]
	return w != nil && t.now().Sub(w.start) < t.window && w.count >= t.limit
}

// Fail records one failure for key.
func (t *Throttle) Fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if len(t.hits) > 100_000 {
		t.sweep(now)
	}
	w := t.hits[key]
	if w == nil || now.Sub(w.start) >= t.window {
		t.hits[key] = &window{start: now, count: 1}
		return
	}
	w.count++
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
