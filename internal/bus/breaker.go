package bus

import (
	"errors"
	"log/slog"
	"sync"
	"time"
)

// ErrUnavailable is returned at once, without trying, while the breaker
// is open (the shared backend failed recently).
var ErrUnavailable = errors.New("the shared message channel is unreachable")

// breaker stops a dead backend from costing every caller a connect timeout:
// after a failure, calls fail fast until a back-off has passed; then one
// call probes the backend. The outage is logged once when it starts and
// once when it ends.
type breaker struct {
	name string
	now  func() time.Time

	mu      sync.Mutex
	open    bool
	since   time.Time
	until   time.Time
	backoff time.Duration
	probing bool
	dropped int64
}

const (
	breakerMin = time.Second
	breakerMax = 30 * time.Second
)

// allow reports whether a call may go to the backend now.
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return true
	}
	if !b.probing && !b.now().Before(b.until) {
		b.probing = true
		return true
	}
	b.dropped++
	return false
}

// isOpen reports whether calls are refused (the backend failed recently).
func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}

// result records the outcome of an allowed call; opened is true when this
// failure started an outage.
func (b *breaker) result(err error) (opened bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	if err == nil {
		if b.open {
			slog.Info(b.name+" reachable again", "outage", b.now().Sub(b.since).Round(time.Millisecond).String(), "dropped", b.dropped)
			b.open, b.backoff, b.dropped = false, 0, 0
		}
		return false
	}
	if !b.open {
		b.open, b.since, opened = true, b.now(), true
		slog.Warn(b.name+" unreachable: live events and cache notices to other instances wait until it is back", "err", err)
	}
	b.backoff = min(max(2*b.backoff, breakerMin), breakerMax)
	b.until = b.now().Add(b.backoff)
	return opened
}
