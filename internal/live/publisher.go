package live

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// Publisher hands item changes to the hub from a queue, so that a save never
// waits for the bus: with Redis unreachable the bus's breaker drops events at
// once, and even its probe (up to a second) is paid by this goroutine, not by
// the request. Events of one process keep their order.
type Publisher struct {
	hub     *Hub
	queue   chan pending
	dropped atomic.Int64
	failed  atomic.Int64
}

type pending struct {
	listID string
	n      int64
	item   any
}

// PublishQueue is how many events may wait for the bus before new ones are dropped.
const PublishQueue = 4096

// NewPublisher builds the asynchronous publisher of h; Run delivers its queue.
func NewPublisher(h *Hub) *Publisher {
	return &Publisher{hub: h, queue: make(chan pending, PublishQueue)}
}

// Enqueue queues an item_updated event and returns at once (call after commit).
func (p *Publisher) Enqueue(listID string, itemNumber int64, item any) {
	select {
	case p.queue <- pending{listID, itemNumber, item}:
	default:
		if p.dropped.Add(1)%1000 == 1 {
			slog.Warn("live events dropped: the publish queue is full", "dropped", p.dropped.Load())
		}
	}
}

// Run publishes queued events until ctx ends.
func (p *Publisher) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-p.queue:
			if err := p.hub.PublishItem(ctx, e.listID, e.n, e.item); err != nil {
				// the bus logs an outage once; one line per event would flood the log
				p.failed.Add(1)
				slog.Debug("live event not published", "list", e.listID, "item", e.n, "err", err)
			}
		}
	}
}

// Dropped counts events dropped because the queue was full; Failed those the bus refused.
func (p *Publisher) Dropped() int64 { return p.dropped.Load() }

// Failed counts events the bus could not publish.
func (p *Publisher) Failed() int64 { return p.failed.Load() }
