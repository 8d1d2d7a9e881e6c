package auth

import (
	"context"

	"coreportal/internal/fault"
)

// Credential describes a bearer credential other than a session token (a
// service token, an app password) that authenticated the caller.
type Credential struct {
	Kind     string // e.g. "service_token"
	ID       string
	Name     string
	ReadOnly bool // writes are refused (scope read)
}

// CredentialAppPassword is the Kind of an app password (internal/apppass).
const CredentialAppPassword = "app_password"

// ReadOnlyCredential reports whether p signed in with a read-only
// credential (an app password or service token of scope read).
func (p *Principal) ReadOnlyCredential() bool { return p.Credential != nil && p.Credential.ReadOnly }

// TokenResolver turns a bearer token of its own kind into a principal:
// ok=false when the token is not of its kind (the next resolver, then the
// session JWT check, gets it); an error when it is, but is not valid.
type TokenResolver func(ctx context.Context, token string) (p *Principal, ok bool, err error)

// AddTokenResolver registers a resolver for bearer tokens that are not
// session tokens; each is asked in order before the JWT check.
func (s *Service) AddTokenResolver(r TokenResolver) { s.resolvers = append(s.resolvers, r) }

// authenticateToken is Authenticate preceded by the registered resolvers
// (bearer header only: the session cookie only ever carries a session token).
func (s *Service) authenticateToken(ctx context.Context, tok string, fromCookie bool) (*Principal, error) {
	if !fromCookie {
		for _, r := range s.resolvers {
			if p, ok, err := r(ctx, tok); ok || err != nil {
				return p, err
			}
		}
	}
	return s.Authenticate(ctx, tok)
}

// CredentialCheck reports whether the credential of that id still works (not
// revoked nor expired): fault UNAUTHORIZED otherwise.
type CredentialCheck func(ctx context.Context, id string) error

// AddCredentialCheck registers how Recheck confirms a credential of kind
// (long-lived streams end when it is revoked). Called while the service is
// set up, before requests are served.
func (s *Service) AddCredentialCheck(kind string, check CredentialCheck) {
	if s.checks == nil {
		s.checks = map[string]CredentialCheck{}
	}
	s.checks[kind] = check
}

// checkCredential confirms p's credential, if it has one; a kind without a
// registered check is refused, never assumed valid.
func (s *Service) checkCredential(ctx context.Context, p *Principal) error {
	if p.Credential == nil {
		return nil
	}
	check, ok := s.checks[p.Credential.Kind]
	if !ok {
		return fault.Unauthorized("this kind of credential cannot be confirmed; sign in again")
	}
	return check(ctx, p.Credential.ID)
}
