package lists

import (
	"testing"
	"time"
)

// A schema read before an invalidation must not be cached: it may predate
// the change (a stale next_col or field set would then live for schemaTTL).
func TestSchemaCacheSkipsSnapshotsOlderThanAnInvalidation(t *testing.T) {
	c := &schemaCache{m: map[string]cachedSchema{}, now: time.Now}
	sc := newSchema(&List{ID: "a", NextCol: 3}, nil)

	gen := c.generation()
	c.drop("a") // a concurrent change commits while the snapshot is read
	c.put(sc, gen)
	if _, ok := c.get("a"); ok {
		t.Fatal("a snapshot read before an invalidation was cached")
	}

	gen = c.generation()
	c.put(sc, gen)
	if got, ok := c.get("a"); !ok || got.list.NextCol != 3 {
		t.Fatalf("fresh snapshot not cached: %v %v", got, ok)
	}
}
