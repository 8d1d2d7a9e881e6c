package auth

import (
	"context"
	"log/slog"

	"coreportal/internal/audit"
	"coreportal/internal/fault"
)

// StartSession signs in an account that another method already proved
// (OpenID Connect, Kerberos): the same token and audit record as a password
// sign-in. Inactive and system accounts are refused.
func (s *Service) StartSession(ctx context.Context, acc Account, method, address string) (Session, error) {
	if !acc.IsActive || acc.IsSystem || acc.ID == "" {
		slog.InfoContext(ctx, "sign-in refused: account inactive or not usable", "login", acc.Login, "method", method)
		audit.Record(ctx, audit.Entry{Action: audit.SignInFailed, ResourceType: "user", Outcome: "failure",
			Actor: &audit.Actor{Login: acc.Login, Address: address}, Details: map[string]any{"method": method}})
		return Session{}, fault.Unauthorized("this account cannot sign in")
	}
	audit.Record(ctx, audit.Entry{Action: audit.SignIn, ResourceType: "user", ResourceID: acc.ID,
		Actor: &audit.Actor{ID: acc.ID, Login: acc.Login, Address: address}, Details: map[string]any{"authSource": acc.AuthSource, "method": method}})
	tok, exp, err := s.tokens.Issue(acc.ID, acc.TokenVersion)
	if err != nil {
		return Session{}, err
	}
	return Session{Token: tok, ExpiresAt: exp, UserID: acc.ID}, nil
}
