package auth

import (
	"context"
	"log/slog"
	"net/netip"
	"runtime"
	"strings"
	"time"

	"coreportal/internal/audit"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Account is what sign-in needs to know of a user.
type Account struct {
	ID           string
	Login        string
	DisplayName  string
	AuthSource   string
	PasswordHash string
	IsActive     bool
	IsAdmin      bool
	IsSystem     bool
	TokenVersion int
}

// Accounts is implemented by the users service.
type Accounts interface {
	// AccountByLogin returns fault NotFound when no user has that login.
	AccountByLogin(ctx context.Context, login string) (Account, error)
	// AccountByID may answer from a short-lived cache; fault NotFound when absent.
	AccountByID(ctx context.Context, id string) (Account, error)
}

// DomainLogin signs in against the directory; nil until the directory is configured.
type DomainLogin func(ctx context.Context, login, password string) (Account, error)

// Service signs users in and resolves tokens to principals.
type Service struct {
	accounts Accounts
	tokens   *Tokens
	throttle *Throttle
	revoked  *Revocations
	domain   DomainLogin
	// hashing bounds concurrent password checks: each argon2id check takes
	// 7 MiB and a core for a few milliseconds.
	hashing     chan struct{}
	proxies     []netip.Prefix
	corsOrigins []string
	resolvers   []TokenResolver // credential.go
	checks      map[string]CredentialCheck
	publicHTTPS bool
}

// NewService wires the sign-in service: the throttle and the deny-list of
// signed-out tokens live in db and are shared by every instance.
func NewService(accounts Accounts, tokens *Tokens, db *store.DB, b bus.Bus) *Service {
	return &Service{
		accounts: accounts,
		tokens:   tokens,
		throttle: NewThrottle(db),
		revoked:  NewRevocations(db, b),
		hashing:  make(chan struct{}, max(2, runtime.NumCPU()*2)),
	}
}

// Revocations is the deny-list of signed-out tokens (Load it before serving, Run it in a loop).
func (s *Service) Revocations() *Revocations { return s.revoked }

// SetDomainLogin plugs in directory sign-in.
func (s *Service) SetDomainLogin(fn DomainLogin) { s.domain = fn }

// Session is the result of a sign-in.
type Session struct {
	Token     string
	ExpiresAt time.Time
	UserID    string
}

var errBadCredentials = fault.Unauthorized("invalid login or password")

// verify checks a password with at most cap(s.hashing) checks at once.
func (s *Service) verify(ctx context.Context, hash, password string) (bool, error) {
	select {
	case s.hashing <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashing }()
	return VerifyPassword(hash, password)
}

// Login checks credentials. Wrong login and wrong password give the same
// answer, in about the same time.
func (s *Service) Login(ctx context.Context, login, password, authType, address string) (Session, error) {
	login = strings.TrimSpace(login)
	if authType != "" && authType != "local" && authType != "domain" {
		return Session{}, fault.Validation("authType", "authType must be local or domain")
	}
	if authType == "domain" && s.domain == nil {
		return Session{}, fault.Validation("authType", "domain sign-in is not available: the directory connection is not configured")
	}
	begin := s.throttle.Begin
	if p := FromContext(ctx); p != nil && strings.EqualFold(p.Login, login) {
		begin = s.throttle.BeginWithSession // a valid session of this login: its owner
	}
	try, err := begin(ctx, login, address)
	if err != nil {
		return Session{}, err
	}
	var acc Account
	if authType == "domain" {
		acc, err = s.domain(ctx, login, password)
		if fault.Is(err, fault.CodeNotFound) {
			err = errBadCredentials
		}
	} else {
		acc, err = s.localAccount(ctx, login, password)
	}
	if err != nil {
		if fault.Is(err, fault.CodeUnauthorized) {
			slog.InfoContext(ctx, "sign-in failed", "login", login, "address", address)
			audit.Record(ctx, audit.Entry{Action: audit.SignInFailed, ResourceType: "user", Outcome: "failure",
				Actor: &audit.Actor{Login: login, Address: address}, Details: map[string]any{"authType": authType}})
			if ferr := try.Failed(context.WithoutCancel(ctx)); ferr != nil {
				return Session{}, ferr
			}
		} else { // not a wrong password: the attempt does not count
			try.Cancel(ctx)
		}
		return Session{}, err
	}
	if err := try.Succeeded(context.WithoutCancel(ctx)); err != nil {
		return Session{}, err
	}
	audit.Record(ctx, audit.Entry{Action: audit.SignIn, ResourceType: "user", ResourceID: acc.ID,
		Actor: &audit.Actor{ID: acc.ID, Login: acc.Login, Address: address}, Details: map[string]any{"authSource": acc.AuthSource}})
	tok, exp, err := s.tokens.Issue(acc.ID, acc.TokenVersion)
	if err != nil {
		return Session{}, err
	}
	return Session{Token: tok, ExpiresAt: exp, UserID: acc.ID}, nil
}

func (s *Service) localAccount(ctx context.Context, login, password string) (Account, error) {
	acc, err := s.accounts.AccountByLogin(ctx, login)
	if fault.Is(err, fault.CodeNotFound) {
		_, _ = s.verify(ctx, dummyHash(), password)
		return Account{}, errBadCredentials
	}
	if err != nil {
		return Account{}, err
	}
	if acc.PasswordHash == "" || acc.IsSystem || acc.AuthSource != "local" {
		_, _ = s.verify(ctx, dummyHash(), password)
		return Account{}, errBadCredentials
	}
	ok, err := s.verify(ctx, acc.PasswordHash, password)
	if ctx.Err() != nil {
		return Account{}, ctx.Err()
	}
	if err != nil || !ok || !acc.IsActive {
		return Account{}, errBadCredentials
	}
	return acc, nil
}

// Authenticate resolves a token to a principal. Tokens that were signed out,
// of missing, deactivated or system accounts, or older than the account's
// token generation (password change or reset, deactivation, loss of the
// administrator role) are refused.
func (s *Service) Authenticate(ctx context.Context, token string) (*Principal, error) {
	c, err := s.tokens.Verify(token)
	if err != nil {
		return nil, fault.Unauthorized("invalid or expired token")
	}
	p := &Principal{UserID: c.UserID, TokenID: c.ID, TokenVersion: c.Version, ExpiresAt: c.ExpiresAt}
	if err := s.Recheck(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Recheck validates a principal again (long-lived streams call it): the
// token must not have expired or been revoked, and the account must still be
// active at the token's generation. It refreshes the principal's name and
// role from the account.
func (s *Service) Recheck(ctx context.Context, p *Principal) error {
	if !p.ExpiresAt.IsZero() && !time.Now().Before(p.ExpiresAt) {
		return fault.Unauthorized("invalid or expired token")
	}
	if s.revoked != nil && s.revoked.Revoked(p.TokenID) {
		return fault.Unauthorized("the token was revoked (signed out); sign in again")
	}
	acc, err := s.accounts.AccountByID(ctx, p.UserID)
	if fault.Is(err, fault.CodeNotFound) {
		return fault.Unauthorized("invalid or expired token")
	}
	if err != nil {
		return err
	}
	if !acc.IsActive || acc.IsSystem {
		return fault.Unauthorized("the account is deactivated")
	}
	if p.TokenVersion != acc.TokenVersion {
		return fault.Unauthorized("the token was revoked (password, role or status changed); sign in again")
	}
	if err := s.checkCredential(ctx, p); err != nil {
		return err
	}
	p.Login, p.DisplayName, p.IsAdmin = acc.Login, acc.DisplayName, acc.IsAdmin
	return nil
}

// Logout revokes the token the caller signed in with (if any).
func (s *Service) Logout(ctx context.Context) error {
	p := FromContext(ctx)
	if p == nil || p.TokenID == "" || s.revoked == nil {
		return nil
	}
	if err := s.revoked.Revoke(ctx, p.TokenID, p.ExpiresAt); err != nil {
		return err
	}
	audit.Record(ctx, audit.Entry{Action: audit.SignOut, ResourceType: "user", ResourceID: p.UserID,
		Actor: &audit.Actor{ID: p.UserID, Login: p.Login, Address: ClientFrom(ctx).Address}})
	return nil
}
