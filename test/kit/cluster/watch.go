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
// 200 ms after a stream ends and sends Last-Event-ID when it has one.
type Watcher struct {
	c    *Cluster
	f    *Fixture
	home int

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

func (w *Watcher) run(ctx context.Context) {
	for ctx.Err() == nil {
		w.stream(ctx, w.instance())
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (w *Watcher) stream(ctx context.Context, a *API) {
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
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		w.mu.Lock()
		w.history = append(w.history, fmt.Sprintf("%s refused %d %s", a.Name, resp.StatusCode, time.Now().Format("15:04:05.000")))
		w.mu.Unlock()
		return
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
