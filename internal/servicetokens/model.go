// Package servicetokens holds service accounts and their API tokens: an
// administrator creates an account (a users row marked here) and tokens for
// it, scoped read or write, with an optional expiry. A token is shown once
// and kept as its SHA-256; every request checks it against the database, so
// a revocation holds at once on every instance.
package servicetokens

import "time"

// Token scopes.
const (
	ScopeRead  = "read"  // GET and HEAD only
	ScopeWrite = "write" // what the account may do
)

// Prefix starts every service token, so the auth middleware can tell it from a session token.
const Prefix = "cpst_"

// Kind is the auth.Credential kind of a service token.
const Kind = "service_token"

// Account is a service account as administrators see it.
type Account struct {
	ID          string    `json:"id" format:"uuid" doc:"the account's user id: grant it permissions like any user"`
	Login       string    `json:"login"`
	DisplayName string    `json:"displayName"`
	IsCoreAdmin bool      `json:"isCoreAdmin"`
	IsActive    bool      `json:"isActive" doc:"a deactivated account's tokens stop working (PATCH /admin/users/{id})"`
	CreatedAt   time.Time `json:"createdAt"`
	Tokens      []Token   `json:"tokens"`
}

// Token is a token's record; the secret itself is never returned after creation.
type Token struct {
	ID         string     `json:"id" format:"uuid"`
	AccountID  string     `json:"accountId" format:"uuid"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope" enum:"read,write"`
	Prefix     string     `json:"prefix" doc:"the token's first characters, to recognise it"`
	ExpiresAt  *time.Time `json:"expiresAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	LastUsedAt *time.Time `json:"lastUsedAt" doc:"updated at most once a minute"`
	CreatedAt  time.Time  `json:"createdAt"`
}

// NewToken is the answer of token creation: the record and, once, the token.
type NewToken struct {
	Token
	Secret string `json:"token" doc:"the bearer token; shown only in this answer"`
}

// NewAccount is the body of POST /admin/service-accounts.
type NewAccount struct {
	Login       string `json:"login" minLength:"1" maxLength:"100"`
	DisplayName string `json:"displayName,omitempty" maxLength:"200"`
	IsCoreAdmin bool   `json:"isCoreAdmin,omitempty" doc:"give the account the administrator role"`
}

// TokenRequest is the body of POST /admin/service-accounts/{id}/tokens.
type TokenRequest struct {
	Name      string     `json:"name" minLength:"1" maxLength:"100"`
	Scope     string     `json:"scope" enum:"read,write"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty" doc:"RFC 3339; omitted = no expiry; must be in the future"`
}
