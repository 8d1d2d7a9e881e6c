package lists

import (
	"testing"
	"time"
)

func TestCountCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newCountCache()
	c.now = func() time.Time { return now }
	k := countKey{list: "l", view: "v", user: "u", filter: "f"}

	gen := c.generation("l")
	c.put(k, 7, gen)
	if n, ok := c.get(k); !ok || n != 7 {
		t.Fatalf("get = %d, %v; want 7, true", n, ok)
	}
	if _, ok := c.get(countKey{list: "l", view: "v", user: "u", filter: "other"}); ok {
		t.Fatal("another condition must not share the count")
	}

	// a write committed while counting: the result is not kept
	gen = c.generation("l")
	c.changed("l")
	c.put(k, 8, gen)
	if _, ok := c.get(k); ok {
		t.Fatal("a count taken before a write must not be served after it")
	}

	// entries expire
	gen = c.generation("l")
	c.put(k, 9, gen)
	now = now.Add(countTTL + time.Millisecond)
	if _, ok := c.get(k); ok {
		t.Fatal("an expired count must not be served")
	}
}
