package servicetokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// Service manages service accounts and resolves their tokens.
type Service struct {
	db    *store.DB
	st    *tokStore
	users *users.Service
	now   func() time.Time

	mu       sync.Mutex
	lastSeen map[string]time.Time // token id -> last recorded read use (this instance)
}

// New builds the service.
func New(db *store.DB, u *users.Service) *Service {
	return &Service{db: db, st: &tokStore{db: db}, users: u, now: time.Now, lastSeen: map[string]time.Time{}}
}

func hashOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func creator(p *auth.Principal) *string {
	if p == nil || p.IsSystem {
		return nil
	}
	return &p.UserID
}

// CreateAccount adds a service account: a local user without a usable
// password (a random one nobody sees), marked as a service account.
// IsAccount reports whether the user is a service account.
func (s *Service) IsAccount(ctx context.Context, userID string) (bool, error) {
	return s.st.isAccount(ctx, userID)
}

func (s *Service) CreateAccount(ctx context.Context, in NewAccount) (*Account, error) {
	p, err := auth.RequireAdmin(ctx)
	if err != nil {
		return nil, err
	}
	pw := make([]byte, 32)
	_, _ = rand.Read(pw)
	var out *Account
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		u, err := s.users.Create(ctx, users.NewUser{Login: in.Login, DisplayName: in.DisplayName, IsCoreAdmin: in.IsCoreAdmin,
			Password: "Sv1!" + base64.RawURLEncoding.EncodeToString(pw)})
		if err != nil {
			return err
		}
		now := s.now().UTC()
		if err := s.st.insertAccount(ctx, u.ID, creator(p), now); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: "serviceAccount.create", ResourceType: "user", ResourceID: u.ID,
			After: map[string]any{"login": u.Login, "isCoreAdmin": u.IsCoreAdmin}})
		out = &Account{ID: u.ID, Login: u.Login, DisplayName: u.DisplayName, IsCoreAdmin: u.IsCoreAdmin, IsActive: u.IsActive,
			CreatedAt: now, Tokens: []Token{}}
		return nil
	})
	return out, err
}

// Accounts lists the service accounts with their tokens.
func (s *Service) Accounts(ctx context.Context) ([]*Account, error) {
	if _, err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	ids, at, err := s.st.accounts(ctx)
	if err != nil {
		return nil, err
	}
	out := []*Account{}
	for _, id := range ids {
		a, err := s.account(ctx, id, at[id])
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (s *Service) account(ctx context.Context, id string, created time.Time) (*Account, error) {
	u, err := s.users.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	toks, err := s.st.tokens(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Account{ID: u.ID, Login: u.Login, DisplayName: u.DisplayName, IsCoreAdmin: u.IsCoreAdmin, IsActive: u.IsActive,
		CreatedAt: created, Tokens: toks}, nil
}

func (s *Service) requireAccount(ctx context.Context, id string) (string, *auth.Principal, error) {
	p, err := auth.RequireAdmin(ctx)
	if err != nil {
		return "", nil, err
	}
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return "", nil, fault.Validation("id", "id must be a UUID (8-4-4-4-12 hex digits)")
	}
	is, err := s.st.isAccount(ctx, id)
	if err != nil {
		return "", nil, err
	}
	if !is {
		return "", nil, fault.NotFound("service account")
	}
	return id, p, nil
}

// CreateToken issues a token for a service account; the answer is the only
// place the token ever appears.
func (s *Service) CreateToken(ctx context.Context, accountID string, in TokenRequest) (*NewToken, error) {
	id, p, err := s.requireAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, fault.Validation("name", "name is required")
	}
	if in.Scope != ScopeRead && in.Scope != ScopeWrite {
		return nil, fault.Validation("scope", "scope must be read or write")
	}
	now := s.now().UTC()
	if in.ExpiresAt != nil {
		if !in.ExpiresAt.After(now) {
			return nil, fault.Validation("expiresAt", "expiresAt must be in the future")
		}
		t := in.ExpiresAt.UTC()
		in.ExpiresAt = &t
	}
	acc, err := s.users.AccountByID(ctx, id)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	secret := Prefix + base64.RawURLEncoding.EncodeToString(raw)
	t := Token{ID: uuid.NewString(), AccountID: id, Name: name, Scope: in.Scope, Prefix: secret[:len(Prefix)+6],
		ExpiresAt: in.ExpiresAt, CreatedAt: now}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.insertToken(ctx, t, hashOf(secret), acc.TokenVersion, creator(p)); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: "serviceToken.create", ResourceType: "service_token", ResourceID: t.ID,
			After: map[string]any{"accountId": id, "name": name, "scope": t.Scope, "expiresAt": t.ExpiresAt}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &NewToken{Token: t, Secret: secret}, nil
}

// Tokens lists an account's tokens.
func (s *Service) Tokens(ctx context.Context, accountID string) ([]Token, error) {
	id, _, err := s.requireAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.st.tokens(ctx, id)
}

// Revoke ends a token at once (every instance checks the database).
func (s *Service) Revoke(ctx context.Context, accountID, tokenID string) error {
	id, _, err := s.requireAccount(ctx, accountID)
	if err != nil {
		return err
	}
	tid, ok := store.CanonicalUUID(tokenID)
	if !ok {
		return fault.Validation("tokenId", "tokenId must be a UUID (8-4-4-4-12 hex digits)")
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		found, err := s.st.revoke(ctx, id, tid, s.now().UTC())
		if err != nil {
			return err
		}
		if !found {
			return fault.NotFound("service token")
		}
		audit.Record(ctx, audit.Entry{Action: "serviceToken.revoke", ResourceType: "service_token", ResourceID: tid,
			Details: map[string]any{"accountId": id}})
		return nil
	})
}
