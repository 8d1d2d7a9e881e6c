package auth

import (
	"context"
	"log/slog"
	"net/http"

	"coreportal/internal/audit"
	"coreportal/internal/fault"
)

// CheckOwnPassword verifies the current password of the signed-in user p
// before a change of it. A wrong password counts as a failed sign-in of that
// login from the caller's address, with the same limits: a stolen session
// cannot be used to guess the password without end.
func (s *Service) CheckOwnPassword(ctx context.Context, p *Principal, password string) error {
	address := ClientFrom(ctx).Address
	try, err := s.throttle.Begin(ctx, p.Login, address)
	if err != nil {
		return err
	}
	acc, err := s.accounts.AccountByLogin(ctx, p.Login)
	if err == nil && (acc.ID != p.UserID || acc.PasswordHash == "") {
		err = fault.Validation("", "the account has no password of its own to change")
	}
	if err != nil {
		try.Cancel(ctx)
		return err
	}
	ok, err := s.verify(ctx, acc.PasswordHash, password)
	if err != nil || ctx.Err() != nil {
		try.Cancel(ctx)
		if err == nil {
			err = ctx.Err()
		}
		return err
	}
	if !ok {
		slog.InfoContext(ctx, "password change: wrong current password", "login", p.Login, "address", address)
		audit.Record(ctx, audit.Entry{Action: audit.SignInFailed, ResourceType: "user", ResourceID: p.UserID, Outcome: "failure",
			Details: map[string]any{"during": "change-password"}})
		if ferr := try.Failed(context.WithoutCancel(ctx)); ferr != nil {
			return ferr
		}
		return fault.Validation("currentPassword", "the current password is not correct")
	}
	return try.Succeeded(context.WithoutCancel(ctx))
}

// Reissue signs a fresh session for a user at token generation version (a
// password change moved the user to it, ending every older token).
func (s *Service) Reissue(userID string, version int) (Session, error) {
	tok, exp, err := s.tokens.Issue(userID, version)
	if err != nil {
		return Session{}, err
	}
	return Session{Token: tok, ExpiresAt: exp, UserID: userID}, nil
}

// SessionCookie is the core_token cookie that carries sess: HttpOnly,
// SameSite=Lax, Secure when the caller came over https.
func SessionCookie(ctx context.Context, sess Session) http.Cookie {
	return http.Cookie{Name: CookieName, Value: sess.Token, Path: "/", Expires: sess.ExpiresAt,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: ClientFrom(ctx).TLS}
}
