package webhooks

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

func TestSignature(t *testing.T) {
	body := []byte(`{"event":"listItem.created"}`)
	// printf %s '{"event":"listItem.created"}' | openssl dgst -sha256 -hmac 'It is a secret!'
	const known = "sha256=8865bb6cce4a7c5a89fa8e410392cca8c2ac07f9b301e006a232ebe085231eb5"
	sig := Sign("It is a secret!", body)
	for _, c := range []struct {
		name, secret, header string
		body                 []byte
		want                 bool
	}{
		{"own signature", "It is a secret!", sig, body, true},
		{"other secret", "another secret!!", sig, body, false},
		{"changed body", "It is a secret!", sig, []byte(`{"event":"listItem.deleted"}`), false},
		{"no prefix", "It is a secret!", sig[len("sha256="):], body, false},
		{"not hex", "It is a secret!", "sha256=zz", body, false},
		{"empty", "It is a secret!", "", body, false},
		{"truncated", "It is a secret!", sig[:len(sig)-2], body, false},
	} {
		if got := Verify(c.secret, c.body, c.header); got != c.want {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.want)
		}
	}
	if sig != known {
		t.Errorf("signature %q, want %q (HMAC-SHA256 as openssl computes it)", sig, known)
	}
	if Sign("k", []byte("a")) == Sign("k", []byte("b")) {
		t.Error("different bodies, same signature")
	}
}

func TestSenderRefusesLoopbackAndRedirects(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		if !Verify("secret-secret-16", mustRead(r.Body), r.Header.Get(HeaderSignature)) || r.Header.Get(HeaderDelivery) != "d1" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	req := Request{URL: srv.URL + "/hook", Secret: "secret-secret-16", DeliveryID: "d1", Event: "e", Attempt: 1, Body: []byte(`{}`)}
	ctx := context.Background()

	// not allowed: the dialer refuses 127.0.0.1 after resolution
	if res := NewSender(ParseHosts(""), time.Second).Send(ctx, req); !errors.Is(res.Err, ErrRefusedAddress) || hits != 0 {
		t.Fatalf("loopback not refused: %+v, hits %d", res, hits)
	}
	allowed := NewSender(ParseHosts(u.Hostname()), time.Second)
	if res := allowed.Send(ctx, req); res.Err != nil || res.HTTPStatus != 200 || res.Excerpt != "ok" {
		t.Fatalf("allowed delivery: %+v", res)
	}
	req.URL = srv.URL + "/redirect"
	if res := allowed.Send(ctx, req); res.Err == nil || res.HTTPStatus != http.StatusFound {
		t.Fatalf("redirect followed or accepted: %+v", res)
	}
	if hits != 2 {
		t.Fatalf("hits %d, want 2 (the redirect target is never asked)", hits)
	}
}

func mustRead(r io.Reader) []byte {
	b, _ := io.ReadAll(r)
	return b
}
