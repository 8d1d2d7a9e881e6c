package auth

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"coreportal/internal/bus"
	"coreportal/internal/store"
)

const revokedTopic = "auth.revoked"

// Revocations is the deny-list of signed-out tokens (by jti), kept until each
// token expires. The database is the truth shared by every instance; each
// instance answers from memory (a map lookup per request), learns other
// instances' revocations at once through the bus and, should a bus message
// be lost, within RefreshInterval from the database.
type Revocations struct {
	st  *sessionStore
	bus bus.Bus
	now func() time.Time

	// RefreshInterval bounds how long a revocation made on another instance
	// can go unseen here when its bus message is lost.
	RefreshInterval time.Duration

	mu   sync.RWMutex
	ids  map[string]int64 // jti -> expiry (Unix ms)
	seen int64            // latest revoked_at loaded from the database
}

// NewRevocations builds the deny-list on db and b.
func NewRevocations(db *store.DB, b bus.Bus) *Revocations {
	return &Revocations{st: &sessionStore{db: db}, bus: b, now: time.Now, RefreshInterval: 5 * time.Second, ids: map[string]int64{}}
}

// Revoked reports whether the token with this jti was revoked.
func (r *Revocations) Revoked(jti string) bool {
	if jti == "" {
		return false
	}
	r.mu.RLock()
	_, ok := r.ids[jti]
	r.mu.RUnlock()
	return ok
}

func (r *Revocations) add(jti string, exp int64) {
	r.mu.Lock()
	r.ids[jti] = exp
	r.mu.Unlock()
}

// Revoke denies the token with this jti until it expires, on every instance.
func (r *Revocations) Revoke(ctx context.Context, jti string, expiresAt time.Time) error {
	if jti == "" {
		return nil
	}
	exp := expiresAt.UnixMilli()
	if err := r.st.revoke(ctx, jti, exp, r.now().UnixMilli()); err != nil {
		return err
	}
	r.add(jti, exp)
	if err := r.bus.Publish(context.WithoutCancel(ctx), revokedTopic, []byte(jti+" "+strconv.FormatInt(exp, 10))); err != nil {
		// the other instances read it from the database within RefreshInterval
		slog.WarnContext(ctx, "publish token revocation", "err", err)
	}
	return nil
}

// Load reads the revocations made since the last load (all unexpired ones the
// first time). Rows are read from a minute before the latest one seen, so
// that clock differences between instances lose nothing.
func (r *Revocations) Load(ctx context.Context) error {
	r.mu.RLock()
	since := r.seen
	r.mu.RUnlock()
	if since > 0 {
		since -= time.Minute.Milliseconds()
	}
	rows, err := r.st.revokedSince(ctx, since, r.now().UnixMilli())
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, row := range rows {
		r.ids[row.jti] = row.expiresAt
		r.seen = max(r.seen, row.revokedAt)
	}
	return nil
}

// forgetExpired drops expired tokens from memory and from the database.
func (r *Revocations) forgetExpired(ctx context.Context) error {
	now := r.now().UnixMilli()
	r.mu.Lock()
	for jti, exp := range r.ids {
		if exp <= now {
			delete(r.ids, jti)
		}
	}
	r.mu.Unlock()
	return r.st.sweep(ctx, now, r.now().Add(-2*time.Hour).UnixMilli())
}

// Run keeps the deny-list current until ctx ends: bus messages at once, the
// database every RefreshInterval, expired rows swept every ten minutes.
func (r *Revocations) Run(ctx context.Context) {
	msgs, cancel := r.bus.Subscribe(revokedTopic)
	defer cancel()
	refresh := time.NewTicker(r.RefreshInterval)
	defer refresh.Stop()
	sweep := time.NewTicker(10 * time.Minute)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-msgs:
			jti, exp, ok := strings.Cut(string(m), " ")
			if n, err := strconv.ParseInt(exp, 10, 64); ok && err == nil && jti != "" {
				r.add(jti, n)
			}
		case <-refresh.C:
			if err := r.Load(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "refresh revoked tokens", "err", err)
			}
		case <-sweep.C:
			if err := r.forgetExpired(ctx); err != nil && ctx.Err() == nil {
				slog.WarnContext(ctx, "sweep revoked tokens", "err", err)
			}
		}
	}
}
