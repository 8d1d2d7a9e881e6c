// Package idempotency makes creating POSTs safe to retry: a request with an
// Idempotency-Key header is answered once, and a retry with the same key
// and body (per user, for 24 h) gets the stored answer without a second
// create. It owns the idempotency_keys table.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// Header is the request header that names a retry-safe request.
const Header = "Idempotency-Key"

// Keys is the middleware and its settings.
type Keys struct {
	st *keyStore
	// Retention is how long an answer is kept (24 h).
	Retention time.Duration
	// Lease is how long a request in flight holds its key without renewing
	// it; an instance that died mid-request frees the key after it.
	Lease time.Duration
	// Wait is how long a duplicate waits for the first request to finish
	// before it answers 409 (still in progress).
	Wait time.Duration
	now  func() time.Time
}

// New builds the middleware on db.
func New(db *store.DB) *Keys {
	return &Keys{st: &keyStore{db: db}, Retention: 24 * time.Hour, Lease: 30 * time.Second, Wait: 10 * time.Second, now: time.Now}
}

// checkKey accepts 1 to 255 visible ASCII characters.
func checkKey(k string) error {
	if k == "" || len(k) > 255 {
		return fault.Validation(Header, "the %s header must be 1 to 255 visible ASCII characters", Header)
	}
	for i := range len(k) {
		if k[i] < 0x21 || k[i] > 0x7e {
			return fault.Validation(Header, "the %s header must be 1 to 255 visible ASCII characters", Header)
		}
	}
	return nil
}

// Middleware applies to POST requests of signed-in callers that carry the
// header; every other request passes through untouched.
func (k *Keys) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(Header)
		if r.Method != http.MethodPost || key == "" {
			next.ServeHTTP(w, r)
			return
		}
		p := auth.FromContext(r.Context())
		if p == nil || p.UserID == "" {
			next.ServeHTTP(w, r) // nobody to key the answer to (sign-in)
			return
		}
		if err := checkKey(key); err != nil {
			web.WriteError(w, r, err)
			return
		}
		k.serve(w, r, next, p.UserID, key)
	})
}

// request names the operation a key was first used for.
func request(r *http.Request) string {
	sum := sha256.Sum256([]byte(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery))
	return hex.EncodeToString(sum[:])
}

func (k *Keys) serve(w http.ResponseWriter, r *http.Request, next http.Handler, user, key string) {
	ctx := r.Context()
	req := request(r)
	deadline := k.now().Add(k.Wait)
	for {
		now := k.now().UTC()
		ok, rec, err := k.st.reserve(ctx, user, key, req, now, now.Add(k.Lease))
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		if ok {
			k.first(w, r, next, user, key)
			return
		}
		if rec == nil {
			continue
		}
		if now.Sub(rec.CreatedAt) > k.Retention {
			if err := k.st.forget(ctx, user, key); err != nil {
				web.WriteError(w, r, err)
				return
			}
			continue
		}
		if rec.Request != req {
			web.WriteError(w, r, fault.Conflict("this %s was used for another request (another method or path) within 24 hours; use a new key", Header))
			return
		}
		if rec.Done {
			k.replay(w, r, rec)
			return
		}
		if rec.LockedUntil.Before(now) {
			if rec.Saved {
				web.WriteError(w, r, fault.Conflict("the first request with this %s was saved, but its answer was lost when the server stopped: look the result up instead of retrying", Header))
				return
			}
			if taken, err := k.st.takeOver(ctx, user, key, req, now, now.Add(k.Lease)); err != nil {
				web.WriteError(w, r, err)
				return
			} else if taken {
				k.first(w, r, next, user, key)
				return
			}
			continue
		}
		if !k.now().Before(deadline) {
			w.Header().Set("Retry-After", "1")
			web.WriteError(w, r, fault.Conflict("a request with this %s is still in progress; retry later", Header))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// withheld stands, in the content type column, for an answer that carried a
// secret and was therefore not stored.
const withheld = "withheld; secret"

type secretKey struct{}

// WithholdAnswer tells the idempotency middleware, from inside a handler,
// that the answer carries a secret shown only once (an app password, a
// service token): it must never be stored nor replayed. A retry with the
// same key answers 409 CONFLICT instead. Without an idempotent request it
// does nothing.
func WithholdAnswer(ctx context.Context) {
	if p, ok := ctx.Value(secretKey{}).(*bool); ok {
		*p = true
	}
}

// first runs the request that holds the key and stores its answer.
func (k *Keys) first(w http.ResponseWriter, r *http.Request, next http.Handler, user, key string) {
	ctx := r.Context()
	body := newHashingBody(r.Body)
	r.Body = body
	ctx = store.WithCommitHook(ctx, func(txCtx context.Context) error { return k.st.markSaved(txCtx, user, key) })
	secret := new(bool)
	ctx = context.WithValue(ctx, secretKey{}, secret)
	stop := k.renewing(ctx, user, key)
	rec := &capture{ResponseWriter: w, a: &answer{}}
	next.ServeHTTP(rec, r.WithContext(ctx))
	stop()
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	a := rec.a
	if !a.keep() || !body.drain(64<<10) {
		if err := k.st.release(done, user, key); err != nil {
			slog.WarnContext(ctx, "idempotency key not released", "err", err)
		}
		return
	}
	if *secret && a.status < 300 {
		// The answer carries a secret shown once: keep only that it was
		// given, never the answer (a retry answers 409, see replay).
		a = &answer{status: http.StatusConflict, contentType: withheld}
	}
	if err := k.st.complete(done, user, key, body.sum(), a); err != nil {
		slog.ErrorContext(ctx, "idempotent answer not stored: a retry with this key runs again", "err", err)
	}
}

// renewing extends the key's lease while the request runs.
func (k *Keys) renewing(ctx context.Context, user, key string) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(k.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.Lease/3)
				if err := k.st.renew(rctx, user, key, k.now().UTC().Add(k.Lease)); err != nil {
					slog.DebugContext(ctx, "renew idempotency key", "err", err)
				}
				cancel()
			}
		}
	}()
	return func() { close(done); <-ended }
}

// replay answers a retry whose body matches with the stored answer.
func (k *Keys) replay(w http.ResponseWriter, r *http.Request, rec *record) {
	body := newHashingBody(r.Body)
	if !body.drain(-1) {
		web.WriteError(w, r, fault.Validation("body", "the request body could not be read"))
		return
	}
	if body.sum() != rec.BodyHash {
		web.WriteError(w, r, fault.Conflict("this %s was used with another request body within 24 hours; use a new key", Header))
		return
	}
	if rec.ContentType == withheld {
		w.Header().Set("Idempotent-Replayed", "true")
		web.WriteError(w, r, fault.Conflict("the first request with this %s succeeded, but its answer held a secret shown only once and was not kept: "+
			"look the result up (and revoke it if the secret was lost) instead of retrying", Header))
		return
	}
	h := w.Header()
	if rec.ContentType != "" {
		h.Set("Content-Type", rec.ContentType)
	}
	if rec.Location != "" {
		h.Set("Location", rec.Location)
	}
	h.Set("Idempotent-Replayed", "true")
	h.Set("Content-Length", strconv.Itoa(len(rec.Body)))
	w.WriteHeader(rec.Status)
	_, _ = w.Write([]byte(rec.Body))
}

// Purge deletes keys older than Retention every period until ctx ends.
func (k *Keys) Purge(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		if n, err := k.st.purge(ctx, k.now().UTC().Add(-k.Retention)); err != nil {
			store.LogLoopError(ctx, "purge idempotency keys", err)
		} else if n > 0 {
			slog.DebugContext(ctx, "idempotency keys purged", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
