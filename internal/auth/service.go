package auth

import (
	"context"
	"log/slog"
	"net/netip"
	"runtime"
	"strings"
	"time"

	"coreportal/internal/audit"
	"coreportal/internal/fault"
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
	accounts  Accounts
	tokens    *Tokens
	byLogin   *Throttle
	byAddress *Throttle
	domain    DomainLogin
	// hashing bounds concurrent password checks: each argon2id check takes
	// 7 MiB and a core for a few milliseconds.
	hashing chan struct{}
	proxies []netip.Prefix
}

// NewService wires the sign-in service.
func NewService(accounts Accounts, tokens *Tokens) *Service {
	return &Service{
		accounts:  accounts,
		tokens:    tokens,
		byLogin:   NewThrottle(5, 15*time.Minute),
		byAddress: NewThrottle(20, 15*time.Minute),
		hashing:   make(chan struct{}, max(2, runtime.NumCPU()*2)),
	}
}

// SetDomainLogin plugs in directory sign-in.
func (s *Service) SetDomainLogin(fn DomainLogin) { s.domain = fn }

// Session is the result of a sign-in.
type Session struct {
	Token     string
	ExpiresAt time.Time
	UserID    string
}

var (
	errBadCredentials = fault.Unauthorized("invalid login or password")
	errThrottled      = fault.New(fault.CodeRateLimited, "too many failed sign-in attempts; try again later")
)

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
	loginKey := strings.ToLower(login)
	if !s.byLogin.Take(loginKey) {
		return Session{}, errThrottled
	}
	if !s.byAddress.Take(address) {
		s.byLogin.Refund(loginKey)
		return Session{}, errThrottled
	}
	var acc Account
	var err error
	switch authType {
	case "", "local":
		acc, err = s.localAccount(ctx, login, password)
	case "domain":
		if s.domain == nil {
			return Session{}, fault.Validation("authType", "domain sign-in is not available: the directory connection is not configured")
		}
		acc, err = s.domain(ctx, login, password)
		if fault.Is(err, fault.CodeNotFound) {
			err = errBadCredentials
		}
	default:
		return Session{}, fault.Validation("authType", "authType must be local or domain")
	}
	if err != nil {
		if fault.Is(err, fault.CodeUnauthorized) {
			slog.InfoContext(ctx, "sign-in failed", "login", login, "address", address)
			audit.Record(ctx, audit.Entry{Action: audit.SignInFailed, ResourceType: "user", Outcome: "failure",
				Actor: &audit.Actor{Login: login, Address: address}, Details: map[string]any{"authType": authType}})
		} else { // not a wrong password: the attempt does not count
			s.byLogin.Refund(loginKey)
			s.byAddress.Refund(address)
		}
		return Session{}, err
	}
	s.byLogin.Reset(loginKey)
	audit.Record(ctx, audit.Entry{Action: audit.SignIn, ResourceType: "user", ResourceID: acc.ID,
		Actor: &audit.Actor{ID: acc.ID, Login: acc.Login, Address: address}, Details: map[string]any{"authSource": acc.AuthSource}})
	s.byAddress.Refund(address)
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

// Authenticate resolves a token to a principal. Tokens of missing,
// deactivated or system accounts are refused.
func (s *Service) Authenticate(ctx context.Context, token string) (*Principal, error) {
	id, version, err := s.tokens.Verify(token)
	if err != nil {
		return nil, fault.Unauthorized("invalid or expired token")
	}
	acc, err := s.accounts.AccountByID(ctx, id)
	if fault.Is(err, fault.CodeNotFound) {
		return nil, fault.Unauthorized("invalid or expired token")
	}
	if err != nil {
		return nil, err
	}
	if !acc.IsActive || acc.IsSystem {
		return nil, fault.Unauthorized("the account is deactivated")
	}
	if version != acc.TokenVersion {
		return nil, fault.Unauthorized("the token was revoked (password changed); sign in again")
	}
	return &Principal{UserID: acc.ID, Login: acc.Login, DisplayName: acc.DisplayName, IsAdmin: acc.IsAdmin}, nil
}
