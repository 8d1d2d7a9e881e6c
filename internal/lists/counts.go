package lists

import (
	"sync"
	"time"
)

// countCache keeps totalInView (the view's item count for one caller) and the
// total of a filtered listing (keyed also by its exact WHERE text and
// arguments) so that paging through a listing does not count again. Any
// item write on the list drops the list's entries on this instance; entries
// also expire after countTTL, which bounds staleness on other instances.
type countCache struct {
	mu  sync.Mutex
	m   map[countKey]countEntry
	gen map[string]uint64
	now func() time.Time
}

// countKey names one count; filter is "" for totalInView, else a digest of
// the listing's full condition (visibility, view filter, user filter, q).
type countKey struct{ list, view, user, filter string }

type countEntry struct {
	n   int
	gen uint64
	at  time.Time
}

const (
	countTTL      = 5 * time.Second
	maxCountCache = 50_000
)

func newCountCache() *countCache {
	return &countCache{m: map[countKey]countEntry{}, gen: map[string]uint64{}, now: time.Now}
}

func (c *countCache) get(k countKey) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || e.gen != c.gen[k.list] || c.now().Sub(e.at) > countTTL {
		return 0, false
	}
	return e.n, true
}

// generation is read before counting; put with it stores nothing useful if an
// item write committed meanwhile (the entry is already outdated).
func (c *countCache) generation(list string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen[list]
}

func (c *countCache) put(k countKey, n int, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen[k.list] {
		return
	}
	if len(c.m) >= maxCountCache {
		c.m = map[countKey]countEntry{}
	}
	c.m[k] = countEntry{n: n, gen: gen, at: c.now()}
}

// changed invalidates the counts of a list (called after item writes commit).
func (c *countCache) changed(listID string) {
	c.mu.Lock()
	c.gen[listID]++
	c.mu.Unlock()
}
