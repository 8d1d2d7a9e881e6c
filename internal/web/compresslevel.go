package web

import (
	"io"
	"sync"

	"github.com/klauspost/compress/gzhttp/writer"
	"github.com/klauspost/compress/gzhttp/writer/gzkp"
	"github.com/klauspost/compress/gzhttp/writer/zstdkp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression levels, chosen by measurement (bench/README.md, "Session 6:
// answer size"). An answer of at most CompressSmallMax bytes (nearly every
// JSON answer: a listing page of 50 items is about 57 KB) is compressed with
// the small-answer levels: gzip 9 (0.34-0.56 ms of CPU for that page on the
// 2-core reference machine, 9 % smaller than gzip's default level 5) and
// zstd "better" (0.14 ms, 5 % smaller than zstd "fastest"; zstd "best" saves
// 2 % more for 0.5-1.1 ms, too dear). A larger answer, or one flushed before
// its end, is compressed as it streams with the fast levels (gzip 5, zstd
// fastest: about 1-2 µs per KB), so that a 500-item page does not cost
// several milliseconds.
const (
	CompressSmallMax = 128 << 10
	gzipSmallLevel   = gzip.BestCompression
	gzipLargeLevel   = gzip.DefaultCompression
	zstdSmallLevel   = zstd.SpeedBetterCompression
	zstdLargeLevel   = zstd.SpeedFastest
)

// flushCloser is the common part of gzhttp's gzip and zstd writers.
type flushCloser interface {
	io.Writer
	Flush() error
	Close() error
}

// sizedWriter holds an answer until it is complete (Close) or grows past
// CompressSmallMax or is flushed, and then starts the encoder with the level
// for that size. The encoders come from gzhttp's pools.
type sizedWriter struct {
	dst   io.Writer
	buf   *[]byte
	out   flushCloser
	start func(dst io.Writer, small bool) flushCloser
}

var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

func newSizedWriter(dst io.Writer, start func(io.Writer, bool) flushCloser) *sizedWriter {
	b := answerBufs.Get().(*[]byte)
	*b = (*b)[:0]
	return &sizedWriter{dst: dst, buf: b, start: start}
}

func (s *sizedWriter) Write(p []byte) (int, error) {
	if s.out != nil {
		return s.out.Write(p)
	}
	*s.buf = append(*s.buf, p...)
	if len(*s.buf) > CompressSmallMax {
		if err := s.begin(false); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// begin starts the encoder and hands it what is held.
func (s *sizedWriter) begin(small bool) error {
	s.out = s.start(s.dst, small)
	_, err := s.out.Write(*s.buf)
	if cap(*s.buf) <= 2*CompressSmallMax {
		answerBufs.Put(s.buf)
	}
	s.buf = nil
	return err
}

// Flush starts streaming: an answer flushed before its end is a stream of
// unknown length, so it gets the fast level.
func (s *sizedWriter) Flush() error {
	if s.out == nil {
		if err := s.begin(false); err != nil {
			return err
		}
	}
	return s.out.Flush()
}

func (s *sizedWriter) Close() error {
	if s.out == nil {
		if err := s.begin(true); err != nil {
			_ = s.out.Close()
			return err
		}
	}
	return s.out.Close()
}

// sizedGzip and sizedZstd are the writer factories of Compress; the level
// gzhttp passes is ignored in favour of the levels above.
var (
	sizedGzip = writer.GzipWriterFactory{
		Levels: gzkp.Levels,
		New: func(dst io.Writer, _ int) writer.GzipWriter {
			return newSizedWriter(dst, func(dst io.Writer, small bool) flushCloser {
				if small {
					return gzkp.NewWriter(dst, gzipSmallLevel)
				}
				return gzkp.NewWriter(dst, gzipLargeLevel)
			})
		},
	}
	sizedZstd = writer.ZstdWriterFactory{
		Levels: zstdkp.Levels,
		New: func(dst io.Writer, _ int) writer.ZstdWriter {
			return newSizedWriter(dst, func(dst io.Writer, small bool) flushCloser {
				if small {
					return zstdkp.NewWriter(dst, int(zstdSmallLevel))
				}
				return zstdkp.NewWriter(dst, int(zstdLargeLevel))
			})
		},
	}
)
