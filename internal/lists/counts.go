package lists

import (
	"sync"
	"time"
)

// countCache keeps totalInView (the view's item count for one caller) so that
// a filtered listing does not count the whole view again on every page. Any
// item write on the list drops the list's entries on this instance; entries
// also expire after countTTL, which bounds staleness on other instances.
type countCache struct {
	mu   sync.Mutex
	m    map[countKey]countEntry
	gen  map[string]uint64
	now  func() time.Time
	size int
}

type countKey struct{ list, view, user string }

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

func (c *countCache) put(k countKey, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCountCache {
		c.m = map[countKey]countEntry{}
	}
	c.m[k] = countEntry{n: n, gen: c.gen[k.list], at: c.now()}
}

// changed invalidates the counts of a list (called after item writes commit).
func (c *countCache) changed(listID string) {
	c.mu.Lock()
	c.gen[listID]++
	c.mu.Unlock()
}
