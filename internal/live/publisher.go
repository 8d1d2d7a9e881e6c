package live

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Publisher hands item changes to the bus from a queue, so that a save never
// waits for the bus: with Redis unreachable the bus's breaker refuses at
// once, and even its probe (up to a second) is paid by this goroutine, not by
// the request. Events of one process keep their order.
//
// Events the bus refuses are held (up to MaxHeld, in order) and published
// once it answers again, so watchers on every instance get them late rather
// than never. Beyond MaxHeld the oldest held events of a list are dropped
// and a resync event is published for that list when the bus is back.
type Publisher struct {
	hub      *Hub
	queue    chan pending
	dropped  atomic.Int64
	failed   atomic.Int64
	held     []pending
	lost     map[string]bool // lists whose held events overflowed: resync
	omu      sync.Mutex
	overflow map[string]bool // lists of events dropped by Enqueue
	// MaxHeld bounds the events held while the bus is down (default 10,000).
	MaxHeld int
	// Retry is the wait between attempts while the bus refuses (default 500ms).
	Retry time.Duration
}

type pending struct {
	listID string
	msg    []byte
}

// PublishQueue is how many events may wait for the bus before new ones are dropped.
const PublishQueue = 4096

// NewPublisher builds the asynchronous publisher of h; Run delivers its queue.
func NewPublisher(h *Hub) *Publisher {
	return &Publisher{hub: h, queue: make(chan pending, PublishQueue), lost: map[string]bool{}, overflow: map[string]bool{}, MaxHeld: 10_000, Retry: 500 * time.Millisecond}
}

// Enqueue queues an item_updated event and returns at once (call after commit).
func (p *Publisher) Enqueue(listID string, itemNumber int64, item any) {
	msg, err := ItemMessage(listID, itemNumber, item)
	if err != nil {
		slog.Warn("live event not encoded", "list", listID, "item", itemNumber, "err", err)
		return
	}
	select {
	case p.queue <- pending{listKey(listID), msg}:
	default:
		if p.dropped.Add(1)%1000 == 1 {
			slog.Warn("live events dropped: the publish queue is full", "dropped", p.dropped.Load())
		}
		p.omu.Lock()
		p.overflow[listKey(listID)] = true // resync the list once the queue drains
		p.omu.Unlock()
	}
}

// Run publishes queued events until ctx ends.
func (p *Publisher) Run(ctx context.Context) {
	// retryAt is set once when events start waiting and kept while new ones
	// arrive, so a steady stream of saves cannot postpone the retry for ever.
	var retryAt time.Time
	for {
		p.omu.Lock()
		for l := range p.overflow {
			p.lost[l] = true
		}
		clear(p.overflow)
		p.omu.Unlock()
		var wait <-chan time.Time
		if len(p.held) > 0 || len(p.lost) > 0 {
			if retryAt.IsZero() {
				retryAt = time.Now().Add(p.Retry)
			}
			wait = time.After(time.Until(retryAt))
		} else {
			retryAt = time.Time{}
		}
		select {
		case <-ctx.Done():
			return
		case e := <-p.queue:
			p.hold(e)
			if len(p.held) == 1 && len(p.lost) == 0 {
				p.flush(ctx) // the usual path: nothing waits, publish at once
			}
		case <-wait:
			retryAt = time.Time{}
			p.flush(ctx)
		}
	}
}

// hold appends e to the events waiting, dropping the oldest beyond MaxHeld.
func (p *Publisher) hold(e pending) {
	if len(p.held) >= max(1, p.MaxHeld) {
		p.lost[p.held[0].listID] = true
		p.held = p.held[1:]
		p.dropped.Add(1)
	}
	p.held = append(p.held, e)
}

// flush publishes the held events in order, then the resyncs of lists that
// lost events; it stops at the first refusal (the bus is still down).
func (p *Publisher) flush(ctx context.Context) {
	for len(p.held) > 0 {
		e := p.held[0]
		if err := p.hub.Send(ctx, e.listID, e.msg); err != nil {
			p.failed.Add(1)
			slog.Debug("live event not published yet: held until the bus answers", "list", e.listID, "held", len(p.held), "err", err)
			return
		}
		p.held = p.held[1:]
	}
	p.held = nil
	for listID := range p.lost {
		if err := p.hub.PublishResync(ctx, listID); err != nil {
			return
		}
		delete(p.lost, listID)
	}
}
