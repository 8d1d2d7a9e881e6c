package kit

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"testing"
)

// HTTPClient returns an HTTP client for requests a Client cannot send (its
// own headers, contexts and streamed answers): every exchange with the
// server's API is checked against the served OpenAPI document, as
// Client.Send checks its own. An event stream is checked by its status and
// headers and handed over unread; other answers are read whole, checked and
// handed over as read.
func (s *Server) HTTPClient(t testing.TB) *http.Client {
	return &http.Client{Transport: &checkingTransport{t: t, s: s, next: http.DefaultTransport}}
}

// checkingTransport validates each exchange of the requests it carries.
type checkingTransport struct {
	t    testing.TB
	s    *Server
	next http.RoundTripper
}

func (c *checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := requestBody(req)
	resp, err := c.next.RoundTrip(req)
	if err != nil || c.s.contract == nil {
		return resp, err
	}
	ex := Exchange{Request: req, Body: sent, Status: resp.StatusCode, Header: resp.Header}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		c.s.CheckExchange(c.t, ex)
		return resp, nil
	}
	raw, readErr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	if readErr != nil {
		return nil, readErr
	}
	ex.Raw = raw
	c.s.CheckExchange(c.t, ex)
	return resp, nil
}
