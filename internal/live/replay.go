package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"
)

// EventResync tells a client that events of the list may have been missed
// (the bus was cut, the retry queue overflowed, or a Last-Event-ID is no
// longer in the replay window): it reloads the items it shows, for example
// through sync-state, and goes on listening.
const EventResync = "resync"

const (
	// ReplayWindow bounds how old an event a reconnecting stream may ask
	// for with Last-Event-ID; ReplayEvents how many per list are kept.
	ReplayWindow = 5 * time.Minute
	ReplayEvents = 2000
)

// eventIDs makes the ids of events this process publishes: a random
// instance prefix and a sequence, unique across instances and restarts.
var eventIDs = func() func() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	prefix := hex.EncodeToString(b[:]) + "-"
	var seq atomic.Uint64
	return func() string { return prefix + strconv.FormatUint(seq.Add(1), 10) }
}()

// kept is one delivered event of a list's replay window.
type kept struct {
	id string
	at time.Time
	d  delivery
}

// ring is the replay window of one list, in bus order. gen is the bus's
// gap count it was filled under: a gap makes it unusable.
type ring struct {
	events []kept
	gen    uint64
}

func (r *ring) add(k kept) {
	r.events = append(r.events, k)
	cut := 0
	for cut < len(r.events) && (len(r.events)-cut > ReplayEvents || time.Since(r.events[cut].at) > ReplayWindow) {
		cut++
	}
	if cut > 0 {
		r.events = append(r.events[:0:0], r.events[cut:]...)
	}
}

// after returns the events after id; ok is false when id is not in the window.
func (r *ring) after(id string) ([]delivery, bool) {
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].id == id {
			out := make([]delivery, 0, len(r.events)-i-1)
			for _, k := range r.events[i+1:] {
				out = append(out, k.d)
			}
			return out, true
		}
	}
	return nil, false
}

// gapper is a bus that counts lost stretches of its subscription (Redis).
type gapper interface{ Gaps() uint64 }

func (h *Hub) gaps() uint64 {
	if g, ok := h.bus.(gapper); ok {
		return g.Gaps()
	}
	return 0
}

func resyncFrame(listID string) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: {\"listId\":%q}\n\n", EventResync, listID)
}

// watchGaps sends resync to every open stream once the bus's subscription
// came back after a loss, and empties the replay windows (they have a hole).
func (h *Hub) watchGaps() {
	if _, ok := h.bus.(gapper); !ok {
		return
	}
	seen := h.gaps()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-h.closing:
			return
		case <-t.C:
		}
		now := h.gaps()
		if now == seen {
			continue
		}
		seen = now
		h.mu.Lock()
		for listID, ls := range h.lists {
			ls.ring = ring{gen: now}
			h.broadcast(ls, delivery{resync: true, frame: resyncFrame(listID)})
		}
		h.mu.Unlock()
	}
}

// broadcast hands d to every client of ls (h.mu held).
func (h *Hub) broadcast(ls *listSub, d delivery) {
	for c := range ls.clients {
		select {
		case c.ch <- d:
		default:
			h.dropped.Add(1)
			c.lagged.Store(true)
		}
	}
}

// PublishResync tells every stream of the list, on every instance, to resync.
func (h *Hub) PublishResync(ctx context.Context, listID string) error {
	return h.bus.Publish(ctx, topic(listID), []byte(`{"resync":true}`))
}

// replay returns what a stream reconnecting with lastID missed: the events
// after it, or a resync when it is not in the window.
func (h *Hub) replay(listID string, c *client, lastID string) []delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	ls := h.lists[listID]
	if ls == nil {
		return []delivery{{resync: true, frame: resyncFrame(listID)}}
	}
	if ls.ring.gen != h.gaps() {
		ls.ring = ring{gen: h.gaps()}
	}
	ds, ok := ls.ring.after(lastID)
	if !ok {
		return []delivery{{resync: true, frame: resyncFrame(listID)}}
	}
	out := ds[:0:0]
	for _, d := range ds {
		if _, watched := c.ids[d.n]; watched {
			out = append(out, d)
		}
	}
	return out
}
