package cluster

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Watcher is one live-stream client of the watched items. It stays on its
// home instance while that lives (the next alive one otherwise), reconnects
// 200 ms after a stream ends and sends Last-Event-ID when it has one. When
// an instance refuses the stream (503 while its bus is cut) it streams from
// the next alive instance until that stream ends, as a client behind a load
// balancer would: the refusing instance then has no stream asking after
// its bus, only its own probing brings its held events out.
type Watcher struct {
	c    *Cluster
	f    *Fixture
	home int
	away *API // where it streams from after its home refused

	mu       sync.Mutex
	lastID   string
	seen     map[string]time.Time // saved value → when it arrived
	resyncs  []time.Time
	connects int
	drops    int
	history  []string // stream opened/ended, with the instance and time
}

func newWatcher(c *Cluster, f *Fixture, home int) *Watcher {
	return &Watcher{c: c, f: f, home: home, seen: map[string]time.Time{}}
}

var savedValue = regexp.MustCompile(`"((?:p|cut)-\d+-\d+)"`)

func (w *Watcher) instance() *API {
	all := w.c.Alive()
	for _, a := range all {
		if a.Name == fmt.Sprintf("api%d", w.home%w.c.Opts.APIs) {
			return a
		}
	}
	return all[w.home%len(all)]
}

// next is the alive instance after a, or nil when a is the only one.
func (w *Watcher) next(a *API) *API {
	all := w.c.Alive()
	for i, b := range all {
		if b == a && len(all) > 1 {
			return all[(i+1)%len(all)]
		}
	}
	return nil
}

func (w *Watcher) run(ctx context.Context) {
	for ctx.Err() == nil {
		a := w.instance()
		if w.away != nil && !w.away.Dead() {
			a = w.away
		}
		w.away = nil
		if refused := w.stream(ctx, a); refused {
			w.away = w.next(a)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stream follows one live stream of a until it ends; refused is true when
// a answered it with another status than 200.
func (w *Watcher) stream(ctx context.Context, a *API) (refused bool) {
	ids := make([]string, len(w.f.Watched))
	for i, id := range w.f.Watched {
		ids[i] = fmt.Sprint(id)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", a.URL+"/api/v1/lists/"+w.f.ListID+"/items/live?ids="+strings.Join(ids, ","), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+w.c.Token)
	w.mu.Lock()
	if w.lastID != "" {
		req.Header.Set("Last-Event-ID", w.lastID)
	}
	w.mu.Unlock()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		w.mu.Lock()
		w.history = append(w.history, fmt.Sprintf("%s refused %d %s", a.Name, resp.StatusCode, time.Now().Format("15:04:05.000")))
		w.mu.Unlock()
		return true
	}
	w.mu.Lock()
	w.connects++
	w.history = append(w.history, fmt.Sprintf("%s opened %s", a.Name, time.Now().Format("15:04:05.000")))
	w.mu.Unlock()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		w.line(sc.Text())
	}
	w.mu.Lock()
	w.drops++
	w.history = append(w.history, fmt.Sprintf("%s ended %s", a.Name, time.Now().Format("15:04:05.000")))
	w.mu.Unlock()
	return false
}

// Describe names the watcher and its streams and resyncs, for failure reports.
func (w *Watcher) Describe() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	rs := make([]string, len(w.resyncs))
	for i, r := range w.resyncs {
		rs[i] = r.Format("15:04:05.000")
	}
	return fmt.Sprintf("watcher %d: streams %v, resyncs %v", w.home, w.history, rs)
}

func (w *Watcher) line(l string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case strings.HasPrefix(l, "id:"):
		w.lastID = strings.TrimSpace(strings.TrimPrefix(l, "id:"))
	case strings.HasPrefix(l, "event:") && strings.TrimSpace(strings.TrimPrefix(l, "event:")) == "resync":
		w.resyncs = append(w.resyncs, time.Now())
	case strings.HasPrefix(l, "data:"):
		for _, m := range savedValue.FindAllStringSubmatch(l, -1) {
			if _, ok := w.seen[m[1]]; !ok {
				w.seen[m[1]] = time.Now()
			}
		}
	}
}

// Covered reports whether the watcher got value, or a resync after since.
func (w *Watcher) Covered(value string, since time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.seen[value]; ok {
		return true
	}
	for _, r := range w.resyncs {
		if !r.Before(since) {
			return true
		}
	}
	return false
}

// Stats returns how many streams were opened and ended, and resyncs received.
func (w *Watcher) Stats() (connects, drops, resyncs int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.connects, w.drops, len(w.resyncs)
}
