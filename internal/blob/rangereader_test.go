package blob

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// countingStore counts the readers GetRange opens.
type countingStore struct {
	*Local
	opened int
}

func (c *countingStore) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	c.opened++
	return c.Local.GetRange(ctx, key, offset, length)
}

func TestRangeReader(t *testing.T) {
	ctx := context.Background()
	l, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789"), 1000)
	if _, err := l.Put(ctx, "k", bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Local: l}
	open, err := l.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRangeReader(ctx, st, "k", int64(len(content)), open)
	defer r.Close()
	// http.ServeContent's size probe: seeking alone opens nothing and the
	// reader opened at 0 is used for a read from 0
	if end, _ := r.Seek(0, io.SeekEnd); end != int64(len(content)) {
		t.Fatalf("size %d", end)
	}
	_, _ = r.Seek(0, io.SeekStart)
	head := make([]byte, 10)
	if _, err := io.ReadFull(r, head); err != nil || string(head) != "0123456789" || st.opened != 0 {
		t.Fatalf("read from 0: %q %v, %d opened", head, err, st.opened)
	}
	_, _ = r.Seek(5005, io.SeekStart)
	if _, err := io.ReadFull(r, head[:3]); err != nil || string(head[:3]) != "567" || st.opened != 1 {
		t.Fatalf("read at 5005: %q %v, %d opened", head[:3], err, st.opened)
	}
	if _, err := io.ReadFull(r, head[:2]); err != nil || string(head[:2]) != "89" || st.opened != 1 {
		t.Fatalf("read on: %q %v, %d opened", head[:2], err, st.opened)
	}
	_, _ = r.Seek(-1, io.SeekEnd)
	if rest, err := io.ReadAll(r); err != nil || string(rest) != "9" {
		t.Fatalf("last byte: %q %v", rest, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Fatal("a negative position was accepted")
	}
	missing := NewRangeReader(ctx, st, "gone", 10, nil)
	if _, err := missing.Read(head); err == nil {
		t.Fatal("a missing key read without error")
	}
}
