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
