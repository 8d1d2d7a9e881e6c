package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ExcerptLimit is how much of a receiver's answer the log keeps.
const ExcerptLimit = 1024

// Request is one attempt to deliver.
type Request struct {
	URL, Secret, DeliveryID, Event string
	Attempt                        int
	Body                           []byte
}

// Result is what the log keeps of an attempt.
type Result struct {
	HTTPStatus int
	Duration   time.Duration
	Excerpt    string
	Err        error // nil only for a 2xx answer
}

// Sender posts deliveries; the zero value is not usable, use NewSender.
type Sender struct {
	hosts Hosts
	safe  *http.Client // dials only addresses the rule allows
	open  *http.Client // for allowed hosts
}

// NewSender builds the two clients. Redirects are never followed (a 3xx is
// a failed delivery), proxies from the environment are not used (the check
// must see the real target), and each attempt is bounded by timeout.
func NewSender(hosts Hosts, timeout time.Duration) *Sender {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	mk := func(checked bool) *http.Client {
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
		if checked {
			d.Control = control
		}
		tr := &http.Transport{Proxy: nil, DialContext: d.DialContext, MaxIdleConnsPerHost: 4,
			IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout}
		return &http.Client{Transport: tr, Timeout: timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Sender{hosts: hosts, safe: mk(true), open: mk(false)}
}

// Hosts returns the allowed host list.
func (s *Sender) Hosts() Hosts { return s.hosts }

// Send makes one attempt.
func (s *Sender) Send(ctx context.Context, r Request) Result {
	began := time.Now()
	res := s.send(ctx, r)
	res.Duration = time.Since(began)
	return res
}

func (s *Sender) send(ctx context.Context, r Request) Result {
	u, err := url.Parse(r.URL)
	if err != nil {
		return Result{Err: fmt.Errorf("bad url: %w", err)}
	}
	c := s.safe
	if s.hosts.Allows(u.Hostname()) {
		c = s.open
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(r.Body))
	if err != nil {
		return Result{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "CorePortal-Webhook/1")
	req.Header.Set(HeaderSignature, Sign(r.Secret, r.Body))
	req.Header.Set(HeaderDelivery, r.DeliveryID)
	req.Header.Set(HeaderEvent, r.Event)
	req.Header.Set(HeaderAttempt, strconv.Itoa(r.Attempt))
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(time.Now().Unix(), 10))
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, ErrRefusedAddress) {
			return Result{Err: ErrRefusedAddress}
		}
		return Result{Err: errors.New(scrub(err.Error(), r.URL))}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, ExcerptLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	res := Result{HTTPStatus: resp.StatusCode, Excerpt: excerpt(raw)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Err = fmt.Errorf("receiver answered %d", resp.StatusCode)
	}
	return res
}

// excerpt keeps valid UTF-8 of the answer's start.
func excerpt(b []byte) string {
	for len(b) > 0 && !utf8.Valid(b) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// scrub keeps the URL's query (which may carry a token) out of logged errors.
func scrub(msg, raw string) string {
	if u, err := url.Parse(raw); err == nil && u.RawQuery != "" {
		msg = strings.ReplaceAll(msg, raw, u.Scheme+"://"+u.Host+u.Path)
	}
	return msg
}
