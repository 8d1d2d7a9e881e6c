package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Ranger opens sections of keys (Store.GetRange).
type Ranger interface {
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
}

// RangeReader is an io.ReadSeekCloser over the content of a key: a Read at
// another offset than the open reader's opens the key from that offset to
// the end (Store.GetRange), so serving a range (http.ServeContent seeks)
// never streams the bytes before it. Seeking alone opens nothing.
type RangeReader struct {
	ctx   context.Context
	store Ranger
	key   string
	size  int64
	off   int64 // position of the next Read
	rc    io.ReadCloser
	rcOff int64 // position of rc
}

// NewRangeReader reads size bytes of key. open, when not nil, is a reader
// of key already open at offset 0 (Get): it is used while reads start there.
func NewRangeReader(ctx context.Context, st Ranger, key string, size int64, open io.ReadCloser) *RangeReader {
	return &RangeReader{ctx: ctx, store: st, key: key, size: size, rc: open}
}

func (r *RangeReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.rc != nil && r.rcOff != r.off {
		_ = r.rc.Close()
		r.rc = nil
	}
	if r.rc == nil {
		rc, err := r.store.GetRange(r.ctx, r.key, r.off, -1)
		if errors.Is(err, ErrNotFound) {
			return 0, fmt.Errorf("content is missing from the blob store: %w", err)
		}
		if err != nil {
			return 0, err
		}
		r.rc, r.rcOff = rc, r.off
	}
	n, err := r.rc.Read(p)
	r.off += int64(n)
	r.rcOff += int64(n)
	return n, err
}

// Size is the number of bytes read from the start to the end.
func (r *RangeReader) Size() int64 { return r.size }

// Seek moves the offset of the next Read.
func (r *RangeReader) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.off + offset
	case io.SeekEnd:
		abs = r.size + offset
	default:
		return 0, errors.New("seek: bad whence")
	}
	if abs < 0 {
		return 0, errors.New("seek: negative position")
	}
	r.off = abs
	return abs, nil
}

// Close releases the open reader.
func (r *RangeReader) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	r.rc = nil
	return err
}

// Prepare opens the key at offset now, before an answer's headers are sent,
// so that a store that cannot be reached is a 503 (Unreachable) rather than
// a 200 whose body breaks off. The next Read at offset uses it.
func (r *RangeReader) Prepare(offset int64) error {
	if offset >= r.size {
		return nil
	}
	if r.rc != nil && r.rcOff == offset {
		return nil
	}
	if r.rc != nil {
		_ = r.rc.Close()
		r.rc = nil
	}
	rc, err := r.store.GetRange(r.ctx, r.key, offset, -1)
	if errors.Is(err, ErrNotFound) {
		return fmt.Errorf("content is missing from the blob store: %w", err)
	}
	if err != nil {
		return Unreachable(err)
	}
	r.rc, r.rcOff = rc, offset
	return nil
}
