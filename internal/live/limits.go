package live

import (
	"context"
	"sync"

	"coreportal/internal/fault"
)

// Watch is one stream request: which items of which list, for whom, and how
// to re-check the caller and each item.
type Watch struct {
	ListID string
	IDs    []int64
	// UserID counts the stream against the per-user cap.
	UserID string
	// Valid re-checks the caller (account active, token neither revoked nor
	// expired); the stream ends when it fails. Called every RecheckInterval
	// and before each delivery. Nil means always valid.
	Valid func(ctx context.Context) error
	// CanView is asked before each delivery of an item's event.
	CanView func(ctx context.Context, itemNumber int64) bool
}

// streamLimits counts open streams per user and per instance.
type streamLimits struct {
	mu     sync.Mutex
	total  int
	byUser map[string]int
}

// acquire reserves a stream slot for user, or answers 429 RATE_LIMITED.
func (h *Hub) acquire(user string) (release func(), err error) {
	l := &h.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.MaxStreams > 0 && l.total >= h.MaxStreams {
		return nil, fault.New(fault.CodeRateLimited, "this server has the most live streams it serves (%d); poll sync-state instead or retry later", h.MaxStreams)
	}
	if h.MaxStreamsPerUser > 0 && l.byUser[user] >= h.MaxStreamsPerUser {
		return nil, fault.New(fault.CodeRateLimited, "you have %d live streams open on this server, the most allowed; close one first", h.MaxStreamsPerUser)
	}
	if l.byUser == nil {
		l.byUser = map[string]int{}
	}
	l.total++
	l.byUser[user]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.byUser[user]--; l.byUser[user] <= 0 {
				delete(l.byUser, user)
			}
		})
	}, nil
}

// Streams is the number of open streams of this instance.
func (h *Hub) Streams() int {
	h.limits.mu.Lock()
	defer h.limits.mu.Unlock()
	return h.limits.total
}
