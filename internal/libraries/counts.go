package libraries

import (
	"context"
	"strconv"
	"sync"
	"time"

	"coreportal/internal/store"
)

// countTTL bounds how long another instance's writes can leave a folder's
// total stale here; writes on this instance drop the library's totals at once.
const countTTL = 5 * time.Second

// countCache keeps the totals of folder listings that no per-caller
// visibility exception narrows (the count of a large folder is the costly
// part of a page: it reads the whole folder's index range).
type countCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]countEntry
	now func() time.Time
}

type countEntry struct {
	n   int
	gen uint64
	at  time.Time
}

func newCountCache() *countCache { return &countCache{m: map[string]countEntry{}, now: time.Now} }

func countKey(libraryID string, parentNo int64) string {
	return libraryID + "/" + strconv.FormatInt(parentNo, 10)
}

// get returns a cached total and the generation to store a fresh one with.
func (c *countCache) get(libraryID string, parentNo int64) (int, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[countKey(libraryID, parentNo)]
	if ok && e.gen == c.gen && c.now().Sub(e.at) < countTTL {
		return e.n, true, c.gen
	}
	return 0, false, c.gen
}

// put stores a total read at generation gen (ignored when a write came since).
func (c *countCache) put(libraryID string, parentNo int64, n int, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) > 10_000 {
		c.m = map[string]countEntry{}
	}
	c.m[countKey(libraryID, parentNo)] = countEntry{n: n, gen: gen, at: c.now()}
}

func (c *countCache) drop() {
	c.mu.Lock()
	c.gen++
	c.m = map[string]countEntry{}
	c.mu.Unlock()
}

// filesChanged drops cached totals now and again when the transaction commits.
func (s *Service) filesChanged(ctx context.Context) {
	s.counts.drop()
	store.AfterCommit(ctx, s.counts.drop)
}
