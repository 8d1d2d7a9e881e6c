package libraries

import (
	"testing"
	"time"
)

func TestCountCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newCountCache()
	c.now = func() time.Time { return now }
	steps := []struct {
		name   string
		act    func()
		wantOK bool
		wantN  int
	}{
		{"empty", func() {}, false, 0},
		{"stored", func() { _, _, g := c.get("l", 0); c.put("l", 0, 7, g) }, true, 7},
		{"other folder apart", func() { _, _, g := c.get("l", 3); c.put("l", 3, 1, g) }, true, 7},
		{"expired", func() { now = now.Add(countTTL) }, false, 0},
		{"stored again", func() { _, _, g := c.get("l", 0); c.put("l", 0, 8, g) }, true, 8},
		{"dropped by a write", func() { c.drop() }, false, 0},
		{"stale read after a write is not kept", func() { _, _, g := c.get("l", 0); c.drop(); c.put("l", 0, 9, g) }, false, 0},
	}
	for _, st := range steps {
		st.act()
		n, ok, _ := c.get("l", 0)
		if ok != st.wantOK || ok && n != st.wantN {
			t.Fatalf("%s: got %d %v, want %d %v", st.name, n, ok, st.wantN, st.wantOK)
		}
	}
}

func TestContentTypeAndDisposition(t *testing.T) {
	for _, c := range []struct{ declared, sniffed, want string }{
		{"", "image/png", "image/png"},
		{"application/octet-stream", "application/pdf", "application/pdf"},
		{"image/png", "text/html; charset=utf-8", "text/html; charset=utf-8"},
		{"image/png", "image/png", "image/png"},
		{"text/csv", "text/plain; charset=utf-8", "text/csv"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/zip", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"application/pdf", "text/plain; charset=utf-8", "text/plain; charset=utf-8"},
		{"not a type", "text/plain; charset=utf-8", "text/plain; charset=utf-8"},
	} {
		if got := ContentType(c.declared, c.sniffed); got != c.want {
			t.Errorf("ContentType(%q, %q) = %q, want %q", c.declared, c.sniffed, got, c.want)
		}
	}
}
