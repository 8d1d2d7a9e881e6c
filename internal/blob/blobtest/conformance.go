package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"coreportal/internal/blob"
)

// Conformance checks the behaviour every blob.Store promises: Put, Get,
// GetRange, Stat, Delete, refused keys and a cancelled Put leaving nothing.
func Conformance(t *testing.T, s blob.Store) {
	ctx := context.Background()
	key := blob.KeyFor("attachments", "0f8fad5b-d9cb-469f-a165-70867728950e")
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
	if _, err := s.Get(ctx, key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("delete of a missing key: %v", err)
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
	if _, err := s.Get(ctx, "x/y"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatal("cancelled put left content")
	}
	// replacing a key replaces its content
	for _, c := range []string{"first", "second!"} {
		if _, err := s.Put(ctx, "x/replaced", strings.NewReader(c)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Stat(ctx, "x/replaced"); err != nil || n != 7 {
		t.Fatalf("stat replaced: %d %v", n, err)
	}
	_ = s.Delete(ctx, "x/replaced")
	ranges(t, s)
}

// failingReader yields n bytes, then an error.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("client went away")
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'z'
	}
	f.n -= k
	return k, nil
}

// Large checks a content bigger than partSize (several multipart parts on
// S3) round-trips, and that a Put whose reader fails midway leaves nothing.
func Large(t *testing.T, s blob.Store, size int) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	n, err := s.Put(ctx, "large/a", bytes.NewReader(data))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("put large: %d %v", n, err)
	}
	defer s.Delete(ctx, "large/a")
	if n, err := s.Stat(ctx, "large/a"); err != nil || n != int64(len(data)) {
		t.Fatalf("stat large: %d %v", n, err)
	}
	r, err := s.Get(ctx, "large/a")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("large content differs (%d bytes, %v)", len(got), err)
	}
	off := int64(len(data)) - 100
	r, err = s.GetRange(ctx, "large/a", off, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(r)
	r.Close()
	if !bytes.Equal(got, data[off:]) {
		t.Fatalf("tail range differs")
	}
	if _, err := s.Put(ctx, "large/failed", &failingReader{n: size}); err == nil {
		t.Fatal("put from a failing reader succeeded")
	}
	if _, err := s.Stat(ctx, "large/failed"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("failed put left content: %v", err)
	}
}

func ranges(t *testing.T, s blob.Store) {
	t.Helper()
	ctx := context.Background()
	key := "ranges/ab/abcdef"
	if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("stat missing: %v", err)
	}
	if _, err := s.GetRange(ctx, key, 0, 1); !errors.Is(err, blob.ErrNotFound) {
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
		{10, -1, ""},
		{50, 5, ""},
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
	if p, ok := s.(blob.Pinger); !ok {
		t.Error("store cannot be pinged")
	} else if err := p.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}
