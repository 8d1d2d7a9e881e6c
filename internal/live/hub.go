// Package live delivers item changes to browsers as Server-Sent Events. Each
// instance holds one bus subscription per list with watchers and fans every
// message out to its local SSE clients; the bus (in-process or Redis) carries
// a change from the instance that saved it to every other instance.
package live

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// EventItemUpdated is the SSE event name of SPEC.md Events 5.
const EventItemUpdated = "item_updated"

// Hub is the live-update hub of one instance.
type Hub struct {
	bus bus.Bus
	// PingInterval is the heartbeat period (SPEC: 30 s).
	PingInterval time.Duration
	// ClientBuffer is how many events wait for a slow client before newer
	// ones are dropped; the stream then sends a resync after those it kept.
	ClientBuffer int
	// HealthInterval is how often open streams check a shared bus; when it
	// cannot be reached they end, so clients reconnect, get 503 and poll
	// sync-state instead of silently missing events (default 10s).
	HealthInterval time.Duration
	// RecheckInterval is how often an open stream re-checks its caller even
	// when nothing is delivered (at most 30 s).
	RecheckInterval time.Duration
	// MaxStreams caps the open streams of this instance, MaxStreamsPerUser
	// those of one user on it (0 = no cap); beyond them 429 RATE_LIMITED.
	MaxStreams        int
	MaxStreamsPerUser int
	limits            streamLimits
	// Linger keeps a list's subscription and replay window this long after
	// its last stream left (0: dropped at once), so that a client
	// reconnecting to this instance with Last-Event-ID finds its events.
	Linger time.Duration

	hmu       sync.Mutex
	checkedAt time.Time
	lastErr   error

	mu    sync.Mutex
	lists map[string]*listSub

	closing   chan struct{}
	closeOnce sync.Once

	dropped atomic.Int64
}

type listSub struct {
	clients map[*client]struct{}
	cancel  func()
	done    chan struct{}
	ring    ring
	idle    *time.Timer // linger after the last client left
}

type client struct {
	ids map[int64]struct{}
	ch  chan delivery
	// lagged is set when an event was dropped because ch was full: the
	// stream sends a resync once it has written what waits, so a slow
	// client learns that it missed something instead of missing it silently.
	lagged atomic.Bool
}

type delivery struct {
	n      int64
	frame  []byte // the whole SSE event, built once per message for every client
	resync bool   // for every client of the list, whatever items it watches
}

// wire is what travels on the bus: an item's change, or a resync of the list.
type wire struct {
	ID     string          `json:"id,omitempty"`
	N      int64           `json:"n,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Resync bool            `json:"resync,omitempty"`
}

// NewHub builds the hub on b.
func NewHub(b bus.Bus) *Hub {
	h := &Hub{bus: b, PingInterval: 30 * time.Second, ClientBuffer: 64, HealthInterval: 10 * time.Second,
		RecheckInterval: 30 * time.Second, MaxStreams: 1000, MaxStreamsPerUser: 20,
		lists: map[string]*listSub{}, closing: make(chan struct{})}
	go h.watchGaps()
	return h
}

// healthy is the shared bus's health, checked at most once per HealthInterval for all streams.
func (h *Hub) healthy(ctx context.Context) error {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	if time.Since(h.checkedAt) < h.HealthInterval {
		return h.lastErr
	}
	h.lastErr = h.bus.Healthy(ctx)
	h.checkedAt = time.Now()
	return h.lastErr
}

// listKey is the form a list id is published and subscribed under: list ids
// are UUIDs, stored lower-case; a stream opened with an upper-case spelling
// must still get the events published for the stored id.
func listKey(listID string) string { return strings.ToLower(listID) }

func topic(listID string) string { return "live.list." + listKey(listID) }

// PublishItem sends an item_updated event (data per SPEC.md Events 5:
// {listId, item}) to every instance; the lists capability calls it after commit.
func (h *Hub) PublishItem(ctx context.Context, listID string, itemNumber int64, item any) error {
	msg, err := ItemMessage(listID, itemNumber, item)
	if err != nil {
		return err
	}
	return h.Send(ctx, listID, msg)
}

// ItemMessage encodes an item_updated event once, with its event id.
func ItemMessage(listID string, itemNumber int64, item any) ([]byte, error) {
	data, err := json.Marshal(struct {
		ListID string `json:"listId"`
		Item   any    `json:"item"`
	}{listID, item})
	if err != nil {
		return nil, fmt.Errorf("encode live item: %w", err)
	}
	msg, err := json.Marshal(wire{ID: eventIDs(), N: itemNumber, Data: data})
	if err != nil {
		return nil, fmt.Errorf("encode live message: %w", err)
	}
	return msg, nil
}

// Send publishes an encoded message of the list to every instance.
func (h *Hub) Send(ctx context.Context, listID string, msg []byte) error {
	return h.bus.Publish(ctx, topic(listID), msg)
}

// CloseStreams ends every open stream (and refuses new ones with 503): call
// it when the HTTP server shuts down, since streams never become idle.
func (h *Hub) CloseStreams() { h.closeOnce.Do(func() { close(h.closing) }) }

// Subscriptions is the number of bus subscriptions the hub holds (one per watched list).
func (h *Hub) Subscriptions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.lists)
}

// Clients is the number of open live streams on this instance.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, ls := range h.lists {
		n += len(ls.clients)
	}
	return n
}

// Dropped counts events not delivered because a client was too slow.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

func (h *Hub) join(listID string, ids []int64) *client {
	c := &client{ids: make(map[int64]struct{}, len(ids)), ch: make(chan delivery, max(1, h.ClientBuffer))}
	for _, id := range ids {
		c.ids[id] = struct{}{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ls := h.lists[listID]
	if ls == nil {
		msgs, cancel := h.bus.Subscribe(topic(listID))
		ls = &listSub{clients: map[*client]struct{}{}, cancel: cancel, done: make(chan struct{}), ring: ring{gen: h.gaps()}}
		h.lists[listID] = ls
		go h.fanOut(listID, ls, msgs)
	}
	if ls.idle != nil {
		ls.idle.Stop()
		ls.idle = nil
	}
	ls.clients[c] = struct{}{}
	return c
}

func (h *Hub) leave(listID string, c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ls := h.lists[listID]
	if ls == nil {
		return
	}
	delete(ls.clients, c)
	if len(ls.clients) > 0 {
		return
	}
	drop := func() {
		ls.cancel()
		close(ls.done)
		delete(h.lists, listID)
	}
	select {
	case <-h.closing:
		drop()
		return
	default:
	}
	if h.Linger <= 0 {
		drop()
		return
	}
	ls.idle = time.AfterFunc(h.Linger, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.lists[listID] == ls && len(ls.clients) == 0 {
			drop()
		}
	})
}

// fanOut hands each message of a list to the local clients watching the item.
// It ends when the list's subscription is dropped.
func (h *Hub) fanOut(listID string, ls *listSub, msgs <-chan []byte) {
	for {
		var raw []byte
		select {
		case raw = <-msgs:
		case <-ls.done:
			return
		}
		var m wire
		if err := json.Unmarshal(raw, &m); err != nil {
			slog.Warn("live: bad message on the bus", "list", listID, "err", err)
			continue
		}
		if m.Resync {
			h.mu.Lock()
			if h.lists[listID] == ls {
				h.broadcast(ls, delivery{resync: true, frame: resyncFrame(listID)})
			}
			h.mu.Unlock()
			continue
		}
		d := delivery{n: m.N, frame: fmt.Appendf(nil, "event: %s\ndata: %s\n\n", EventItemUpdated, m.Data)}
		if m.ID != "" {
			d.frame = fmt.Appendf(nil, "event: %s\ndata: %s\nid: %s\n\n", EventItemUpdated, m.Data, m.ID)
		}
		h.mu.Lock()
		if h.lists[listID] != ls {
			h.mu.Unlock()
			return
		}
		if m.ID != "" {
			if g := h.gaps(); ls.ring.gen != g {
				ls.ring = ring{gen: g}
			}
			ls.ring.add(kept{id: m.ID, at: time.Now(), d: d})
		}
		for c := range ls.clients {
			if _, ok := c.ids[m.N]; !ok {
				continue
			}
			select {
			case c.ch <- d:
			default:
				h.dropped.Add(1)
				c.lagged.Store(true)
			}
		}
		h.mu.Unlock()
	}
}

// Stream serves text/event-stream until the client leaves: `item_updated`
// events for the items in wt.IDs, a `: ping` comment every PingInterval, and
// 503 UNAVAILABLE when the bus is a shared one and cannot be reached; 429
// RATE_LIMITED beyond MaxStreams or MaxStreamsPerUser. The caller is
// re-checked (wt.Valid) every RecheckInterval and before each delivery, and
// the stream ends when that fails; wt.CanView is asked again before each
// delivery, so a right withdrawn while the stream is open stops the events
// of that item.
func (h *Hub) Stream(w http.ResponseWriter, r *http.Request, wt Watch) error {
	ctx := r.Context()
	listID, ids, canView := wt.ListID, wt.IDs, wt.CanView
	select {
	case <-h.closing:
		web.WriteError(w, r, fault.New(fault.CodeUnavailable, "the server is shutting down"))
		return nil
	default:
	}
	release, err := h.acquire(wt.UserID)
	if err != nil {
		web.WriteError(w, r, err)
		return err
	}
	defer release()
	valid := func() error {
		if wt.Valid == nil {
			return nil
		}
		return wt.Valid(ctx)
	}
	ended := func(err error) error {
		_, _ = fmt.Fprint(w, ": the session ended; sign in again\n\n")
		_ = http.NewResponseController(w).Flush()
		return err
	}
	if h.bus.Shared() {
		if err := h.bus.Healthy(ctx); err != nil {
			web.WriteError(w, r, fault.New(fault.CodeUnavailable, "live updates are unavailable: the shared message channel cannot be reached; poll sync-state instead"))
			return err
		}
	}
	listID = listKey(listID)
	c := h.join(listID, ids)
	defer h.leave(listID, c)

	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store") // authenticated content: never kept by a cache
	hdr.Set("Connection", "keep-alive")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 5000\n\n"); err != nil {
		return err
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		for _, d := range h.replay(listID, c, last) {
			if d.resync || canView == nil || canView(ctx, d.n) {
				if _, err := w.Write(d.frame); err != nil {
					return err
				}
			}
		}
	}
	if err := rc.Flush(); err != nil {
		return err
	}
	ping := time.NewTicker(h.PingInterval)
	defer ping.Stop()
	recheck := time.NewTicker(min(max(h.RecheckInterval, 10*time.Millisecond), 30*time.Second))
	defer recheck.Stop()
	var health <-chan time.Time
	if h.bus.Shared() {
		t := time.NewTicker(h.HealthInterval)
		defer t.Stop()
		health = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.closing:
			return nil
		case <-health:
			if err := h.healthy(ctx); err != nil {
				_, _ = fmt.Fprint(w, ": the shared message channel is unreachable; reconnect later or poll sync-state\n\n")
				_ = rc.Flush()
				return err
			}
			continue
		case <-recheck.C:
			if err := valid(); err != nil {
				return ended(err)
			}
			continue
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return err
			}
		case d := <-c.ch:
			if err := valid(); err != nil {
				return ended(err)
			}
			// write whatever is already waiting, then flush once: under load
			// this saves a system call per event
			wrote := false
			for {
				if d.resync || canView == nil || canView(ctx, d.n) {
					if _, err := w.Write(d.frame); err != nil {
						return err
					}
					wrote = true
				}
				select {
				case d = <-c.ch:
					continue
				default:
				}
				break
			}
			if c.lagged.Swap(false) {
				if _, err := w.Write(resyncFrame(listID)); err != nil {
					return err
				}
				wrote = true
			}
			if !wrote {
				continue
			}
		}
		if err := rc.Flush(); err != nil {
			return err
		}
	}
}
