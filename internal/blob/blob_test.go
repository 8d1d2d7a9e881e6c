package blob

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLocal(t *testing.T) {
	ctx := context.Background()
	s, err := Open("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := KeyFor("attachments", "0f8fad5b-d9cb-469f-a165-70867728950e")
	n, err := s.Put(ctx, key, strings.NewReader("hello"))
	if err != nil || n != 5 {
		t.Fatalf("put: %d %v", n, err)
	}
	r, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "hello" {
		t.Fatalf("got %q", b)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	for _, bad := range []string{"../x", "a/../../b", "/abs", "A", "a//b", ""} {
		if _, err := s.Put(ctx, bad, strings.NewReader("x")); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Put(cctx, "x/y", strings.NewReader("data")); err == nil {
		t.Fatal("cancelled put succeeded")
	}
	if _, err := s.Get(ctx, "x/y"); !errors.Is(err, ErrNotFound) {
		t.Fatal("cancelled put left content")
	}
}

// testRanges checks Stat and GetRange of any Store (shared with the S3 tests).
func testRanges(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	key := "ranges/ab/abcdef"
	if _, err := s.Stat(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("stat missing: %v", err)
	}
	if _, err := s.GetRange(ctx, key, 0, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("range missing: %v", err)
	}
	const content = "0123456789"
	if _, err := s.Put(ctx, key, strings.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	defer s.Delete(ctx, key)
	if n, err := s.Stat(ctx, key); err != nil || n != int64(len(content)) {
		t.Fatalf("stat: %d %v", n, err)
	}
	for _, c := range []struct {
		off, n int64
		want   string
	}{
		{0, -1, content},
		{0, 10, content},
		{3, 4, "3456"},
		{7, -1, "789"},
		{7, 100, "789"},
		{9, 1, "9"},
		{0, 0, ""},
	} {
		r, err := s.GetRange(ctx, key, c.off, c.n)
		if err != nil {
			t.Fatalf("range %d,%d: %v", c.off, c.n, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(b) != c.want {
			t.Errorf("range %d,%d = %q %v, want %q", c.off, c.n, b, err, c.want)
		}
	}
	if _, err := s.GetRange(ctx, key, -1, 2); err == nil {
		t.Error("negative offset accepted")
	}
	if _, err := s.GetRange(ctx, key, 0, -2); err == nil {
		t.Error("length -2 accepted")
	}
}

func TestLocalRanges(t *testing.T) {
	s, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testRanges(t, s)
}
