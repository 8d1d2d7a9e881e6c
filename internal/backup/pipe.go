package backup

import (
	"io"
)

// chunkSize is the size of the blocks handed from the row encoder to the
// compressor.
const chunkSize = 256 << 10

// asyncWriter hands what is written to it, in chunks, to a goroutine that
// writes them to w: the row encoder (database reads, JSON) and the
// compressor run on two cores instead of one. At most 4 chunks are in flight
// (about 1 MB), so memory does not grow with the table.
type asyncWriter struct {
	w    io.Writer
	buf  []byte
	ch   chan []byte
	free chan []byte
	done chan error
	err  error
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{w: w, ch: make(chan []byte, 3), free: make(chan []byte, 4), done: make(chan error, 1)}
	for range 4 {
		a.free <- make([]byte, 0, chunkSize)
	}
	a.buf = <-a.free
	go a.run()
	return a
}

func (a *asyncWriter) run() {
	var err error
	for b := range a.ch {
		if err == nil {
			_, err = a.w.Write(b)
		}
		a.free <- b[:0]
	}
	a.done <- err
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf = a.buf[:len(a.buf)+k]
		p = p[k:]
		if len(a.buf) == cap(a.buf) {
			a.ch <- a.buf
			a.buf = <-a.free
		}
	}
	return n, nil
}

// Close flushes the last chunk, waits for the writer goroutine and returns
// its first error. It must be called exactly once, also on failure paths, so
// that the goroutine ends.
func (a *asyncWriter) Close() error {
	if len(a.buf) > 0 {
		a.ch <- a.buf
	}
	close(a.ch)
	a.err = <-a.done
	return a.err
}
