package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// BodyLimits is the minimum pace a request body must keep. A body may take
// Grace plus one second per MinRate bytes received: a 100 MB upload at the
// default 1 KiB/s floor still has about 28 hours, while a body that sends one
// byte every few seconds is cut off soon after Grace.
type BodyLimits struct {
	Grace   time.Duration // time allowed before any rate is required
	MinRate int64         // bytes per second, averaged over the whole body
}

// DefaultBodyLimits are the limits used when the configuration sets none.
var DefaultBodyLimits = BodyLimits{Grace: 10 * time.Second, MinRate: 1024}

// BodyError is a failure to read the request body: the client sent a
// truncated, malformed, oversized or too slow body. It is the client's fault,
// so it answers 4xx, never 500.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return "read request body: " + e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// status is the answer a body failure deserves.
func (e *BodyError) status() (int, string) {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(e.Err, &mbe):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", mbe.Limit)
	case errors.Is(e.Err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout, "the request body arrived too slowly"
	default:
		return http.StatusBadRequest, "the request body is incomplete or malformed"
	}
}

// ClientReader marks every read error of r (a request body or one part of
// it) as a BodyError. Multipart parts must be read through it so that a body
// without its closing boundary answers 400, not 500.
func ClientReader(r io.Reader) io.Reader { return clientReader{r} }

type clientReader struct{ r io.Reader }

func (c clientReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		var be *BodyError
		if !errors.As(err, &be) {
			err = &BodyError{Err: err}
		}
	}
	return n, err
}

// BodyDeadline enforces BodyLimits while the body is read and lifts the
// connection's read deadline as soon as the body has been read to its end.
//
// Why: net/http keeps reading the connection in the background once a body
// is consumed (to notice a client that goes away). A read deadline left on
// the connection then fires during the handler, and the server cancels the
// context of the connection: that request and every later one on the same
// keep-alive connection see "context canceled". Only the body's reads are
// ever under a deadline; the handler may run as long as its work needs.
func BodyDeadline(lim BodyLimits) func(http.Handler) http.Handler {
	if lim.Grace <= 0 {
		lim.Grace = DefaultBodyLimits.Grace
	}
	if lim.MinRate <= 0 {
		lim.MinRate = DefaultBodyLimits.MinRate
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			b := &paceBody{body: r.Body, rc: http.NewResponseController(w), lim: lim, start: time.Now()}
			r.Body = b
			next.ServeHTTP(w, r)
			b.afterHandler()
		})
	}
}

type paceBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	lim   BodyLimits
	start time.Time
	n     int64
	eof   bool
	err   error
}

func (b *paceBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.err != nil {
		return 0, b.err
	}
	allowed := b.lim.Grace + time.Duration(float64(b.n)/float64(b.lim.MinRate)*float64(time.Second))
	_ = b.rc.SetReadDeadline(b.start.Add(allowed))
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		// Lift the deadline: the background read that net/http starts at
		// the end of the body must never time out.
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		// The deadline stays (passed): the connection is closed, not reused.
		var be *BodyError
		if !errors.As(err, &be) {
			err = &BodyError{Err: err}
		}
		b.err = err
	}
	return n, err
}

// afterHandler bounds what net/http discards of an unread body before it can
// reuse the connection; a body read to its end has no deadline any more.
func (b *paceBody) afterHandler() {
	if !b.eof && b.err == nil {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.lim.Grace))
	}
}

func (b *paceBody) Close() error { return b.body.Close() }
