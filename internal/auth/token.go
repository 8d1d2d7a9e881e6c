package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Tokens issues and checks HS256 JWTs. The algorithm is pinned: tokens with
// alg=none or any other algorithm are refused.
type Tokens struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// NewTokens builds a token issuer; secret must be at least 32 bytes.
func NewTokens(secret []byte, ttl time.Duration) (*Tokens, error) {
	if len(secret) < 32 {
		return nil, errors.New("jwt secret must be at least 32 bytes")
	}
	return &Tokens{secret: secret, ttl: ttl, now: time.Now}, nil
}

type claims struct {
	jwt.RegisteredClaims
	// Version is the user's token_version when the token was issued.
	Version int `json:"ver"`
}

// Issue returns a signed token for the user (at its token version) and its
// expiry. Each token has its own id (jti) so that signing out revokes that
// token alone.
func (t *Tokens) Issue(userID string, version int) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl)
	c := claims{jwt.RegisteredClaims{
		ID:        uuid.NewString(),
		Subject:   userID,
		Issuer:    "coreportal",
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(exp),
	}, version}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.secret)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return s, exp, nil
}

var parser = jwt.NewParser(
	jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
	jwt.WithExpirationRequired(),
	jwt.WithIssuer("coreportal"),
	jwt.WithLeeway(30*time.Second),
)

// Claims is what a valid token says.
type Claims struct {
	UserID    string
	Version   int
	ID        string // jti; empty in tokens issued before sign-out revoked tokens
	ExpiresAt time.Time
}

// Verify returns the claims of a valid token.
func (t *Tokens) Verify(token string) (Claims, error) {
	var c claims
	_, err := parser.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.secret, nil })
	if err != nil {
		return Claims{}, fmt.Errorf("verify token: %w", err)
	}
	if c.Subject == "" {
		return Claims{}, errors.New("verify token: no subject")
	}
	return Claims{UserID: c.Subject, Version: c.Version, ID: c.ID, ExpiresAt: c.ExpiresAt.Time}, nil
}
