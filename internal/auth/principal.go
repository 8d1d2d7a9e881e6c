// Package auth signs users in and tells every layer who is calling: password
// hashing, JWT issue and check, failed-login throttling, the credential
// middleware and the per-operation policy.
package auth

import (
	"context"
	"time"
)

// Principal is the authenticated caller.
type Principal struct {
	UserID      string
	Login       string
	DisplayName string
	IsAdmin     bool
	IsSystem    bool
	// TokenID (jti), TokenVersion and ExpiresAt describe the token the caller
	// presented (empty for jobs): sign-out revokes it, streams recheck it.
	TokenID      string
	TokenVersion int
	ExpiresAt    time.Time
	// ReadOnly: signed in with a read-only app password (writes refused).
	ReadOnly bool
}

type principalKey struct{}

// WithPrincipal binds p to ctx (jobs run as core-system this way).
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the caller, or nil when anonymous.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
