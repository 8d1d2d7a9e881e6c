package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"net/http"
)

// maxAnswer bounds a stored answer; a larger one is not kept (its key is
// released and a retry runs again).
const maxAnswer = 1 << 20

// answer is what the first request answered.
type answer struct {
	status      int
	contentType string
	location    string
	body        bytes.Buffer
	tooLarge    bool
}

// keep reports whether the answer is the request's outcome: successes and
// client errors are; 5xx, 401, 408 and 429 say nothing about a retry.
func (a *answer) keep() bool {
	switch {
	case a.tooLarge, a.status == 0, a.status >= 500:
		return false
	case a.status == http.StatusUnauthorized, a.status == http.StatusRequestTimeout, a.status == http.StatusTooManyRequests:
		return false
	}
	return true
}

// capture passes the answer through and keeps a copy.
type capture struct {
	http.ResponseWriter
	a     *answer
	wrote bool
}

func (c *capture) WriteHeader(code int) {
	if !c.wrote {
		c.wrote = true
		c.a.status = code
		h := c.ResponseWriter.Header()
		c.a.contentType, c.a.location = h.Get("Content-Type"), h.Get("Location")
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if !c.wrote {
		c.WriteHeader(http.StatusOK)
	}
	if !c.a.tooLarge {
		if c.a.body.Len()+len(b) > maxAnswer {
			c.a.tooLarge = true
			c.a.body.Reset()
		} else {
			c.a.body.Write(b)
		}
	}
	return c.ResponseWriter.Write(b)
}

func (c *capture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// hashingBody hashes a request body as the handler reads it.
type hashingBody struct {
	rc  io.ReadCloser
	h   hash.Hash
	eof bool
}

func newHashingBody(rc io.ReadCloser) *hashingBody {
	if rc == nil {
		rc = http.NoBody
	}
	return &hashingBody{rc: rc, h: sha256.New()}
}

func (b *hashingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.h.Write(p[:n])
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *hashingBody) Close() error { return b.rc.Close() }

// drain reads at most limit bytes the handler left (a multipart epilogue;
// -1 = all) and reports whether the whole body went through the hash.
func (b *hashingBody) drain(limit int64) bool {
	if b.eof {
		return true
	}
	var r io.Reader = b
	if limit >= 0 {
		r = io.LimitReader(b, limit)
	}
	_, err := io.Copy(io.Discard, r)
	if err != nil {
		return false
	}
	if !b.eof {
		var one [1]byte
		n, _ := b.Read(one[:])
		return n == 0 && b.eof
	}
	return true
}

func (b *hashingBody) sum() string { return hex.EncodeToString(b.h.Sum(nil)) }
