package auth

import (
	"context"
	"net/http"

	"coreportal/internal/fault"
)

// AppTokenPrefix starts every app password (internal/apppass); a bearer
// token with it is resolved by the AppTokens hook, not as a JWT.
const AppTokenPrefix = "cpap_"

// PrincipalFor is the principal of an active, non-system user (app
// passwords sign in as their owner); fault UNAUTHORIZED otherwise.
func (s *Service) PrincipalFor(ctx context.Context, userID string) (*Principal, error) {
	acc, err := s.accounts.AccountByID(ctx, userID)
	if fault.Is(err, fault.CodeNotFound) {
		return nil, fault.Unauthorized("invalid or expired token")
	}
	if err != nil {
		return nil, err
	}
	if !acc.IsActive || acc.IsSystem {
		return nil, fault.Unauthorized("the account is deactivated")
	}
	return &Principal{UserID: acc.ID, Login: acc.Login, DisplayName: acc.DisplayName, IsAdmin: acc.IsAdmin, TokenVersion: acc.TokenVersion}, nil
}

// readOnlyWrite refuses a write by a read-only app password (service tokens'
// own middleware refuses and audits theirs).
func readOnlyWrite(p *Principal, r *http.Request) error {
	if p.ReadOnlyCredential() && p.Credential.Kind == CredentialAppPassword && unsafeMethod(r.Method) {
		return fault.Forbidden("this app password is read-only")
	}
	return nil
}

// BasicLogin checks a login and password as sign-in does (throttled per
// login and address, audited, local then domain accounts) and returns the
// principal. For HTTP Basic (WebDAV).
func (s *Service) BasicLogin(ctx context.Context, login, password, address string) (*Principal, error) {
	sess, err := s.Login(ctx, login, password, "local", address)
	if fault.Is(err, fault.CodeUnauthorized) && s.domain != nil {
		sess, err = s.Login(ctx, login, password, "domain", address)
	}
	if err != nil {
		return nil, err
	}
	return s.Authenticate(ctx, sess.Token)
}

// BasicHeld answers 429 RATE_LIMITED when sign-in of login from address is
// refused for its failures: checked before a remembered Basic password.
func (s *Service) BasicHeld(ctx context.Context, login, address string) error {
	return s.throttle.Held(ctx, login, address)
}
