package users

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/principals"
	"coreportal/internal/store"
)

// SystemLogin is the administrator account that runs timer jobs.
const SystemLogin = "core-system"

// cacheTTL bounds how long another instance may keep a stale account
// (a deactivated user's token works there at most this long).
const cacheTTL = 10 * time.Second

const changedTopic = "users.changed"

// Service holds the rules of user accounts.
type Service struct {
	db    *store.DB
	st    *Store
	bus   bus.Bus
	cache sync.Map // id -> cached
	// gen counts invalidations; a load that raced with one is not cached.
	gen atomic.Uint64
	now func() time.Time
	// avatars and cardFields are plugged in by the directory capability.
	avatars    AvatarSource
	cardFields func(ctx context.Context) []string
	attrSchema func(ctx context.Context) []Attribute
	// serviceAccount is plugged in by the service-token capability: whether
	// a user is a service account (no usable password).
	serviceAccount func(ctx context.Context, id string) (bool, error)
}

// SetServiceAccounts plugs in the check of service accounts.
func (s *Service) SetServiceAccounts(is func(ctx context.Context, id string) (bool, error)) {
	s.serviceAccount = is
}

type cached struct {
	user *User // without password hash
	at   time.Time
}

// NewService builds the users service and listens for changes made by other instances.
func NewService(db *store.DB, b bus.Bus) *Service {
	return &Service{db: db, st: &Store{db: db}, bus: b, now: time.Now}
}

// Listen drops cached accounts that other instances changed, until ctx ends.
func (s *Service) Listen(ctx context.Context) {
	msgs, cancel := s.bus.Subscribe(changedTopic)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-msgs:
			s.forget(string(id))
		}
	}
}

func (s *Service) changed(ctx context.Context, id string) {
	store.AfterCommit(ctx, func() {
		s.forget(id)
		if err := s.bus.Publish(context.WithoutCancel(ctx), changedTopic, []byte(id)); err != nil {
			slog.WarnContext(ctx, "publish user change", "err", err)
		}
	})
}

func (s *Service) forget(id string) {
	s.gen.Add(1)
	s.cache.Delete(id)
	principals.For(s.db).Forget(id) // display names of person values, here and (through Listen) on every instance
}

func account(u *User) auth.Account {
	return auth.Account{ID: u.ID, Login: u.Login, DisplayName: u.DisplayName, AuthSource: u.AuthSource,
		PasswordHash: u.PasswordHash, IsActive: u.IsActive, IsAdmin: u.IsCoreAdmin, IsSystem: u.IsSystem, TokenVersion: u.TokenVersion}
}

// AccountByLogin implements auth.Accounts.
func (s *Service) AccountByLogin(ctx context.Context, login string) (auth.Account, error) {
	u, err := s.st.byLogin(ctx, login)
	if store.IsNotFound(err) {
		return auth.Account{}, fault.NotFound("user")
	}
	if err != nil {
		return auth.Account{}, err
	}
	return account(u), nil
}

// AccountByID implements auth.Accounts, from a short-lived cache.
func (s *Service) AccountByID(ctx context.Context, id string) (auth.Account, error) {
	u, err := s.cachedUser(ctx, id)
	if err != nil {
		return auth.Account{}, err
	}
	return account(u), nil
}

// cachedUser answers the hot path (every authenticated request, /auth/me)
// from memory. Local changes drop the entry at once, other instances' changes
// through the bus; cacheTTL bounds staleness if a bus message is lost.
func (s *Service) cachedUser(ctx context.Context, id string) (*User, error) {
	if v, ok := s.cache.Load(id); ok {
		c := v.(*cached)
		if s.now().Sub(c.at) < cacheTTL {
			return c.user, nil
		}
	}
	gen := s.gen.Load()
	u, err := s.Get(ctx, id)
	if err != nil {
		if fault.Is(err, fault.CodeValidation) {
			return nil, fault.NotFound("user")
		}
		return nil, err
	}
	u.PasswordHash = "" // never keep hashes in memory
	if s.gen.Load() == gen {
		s.cache.Store(id, &cached{user: u, at: s.now()})
	}
	return u, nil
}

// Get returns a user by id (fault NotFound when absent).
func (s *Service) Get(ctx context.Context, id string) (*User, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fault.Validation("id", "id must be a UUID")
	}
	u, err := s.st.byID(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("user")
	}
	return u, err
}

// Card returns the full card of a user.
func (s *Service) Card(ctx context.Context, id string) (Card, error) {
	if _, err := uuid.Parse(id); err != nil {
		return Card{}, fault.Validation("id", "id must be a UUID")
	}
	u, err := s.cachedUser(ctx, id)
	if err != nil {
		return Card{}, err
	}
	c := u.card()
	if s.attrSchema != nil {
		c.AttributeSchema = s.attrSchema(ctx)
	}
	return c, nil
}

// NewUser is the input of Create.
type NewUser struct {
	Login       string
	Password    string
	DisplayName string
	Email       string
	IsCoreAdmin bool
}

// Create adds a local user.
func (s *Service) Create(ctx context.Context, in NewUser) (*User, error) {
	login := strings.TrimSpace(in.Login)
	if err := checkLogin(login); err != nil {
		return nil, err
	}
	display, err := checkDisplayName(in.DisplayName, login)
	if err != nil {
		return nil, err
	}
	email, err := checkEmail(in.Email)
	if err != nil {
		return nil, err
	}
	if err := auth.CheckPasswordPolicy("password", in.Password, login, email); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	u := &User{ID: uuid.NewString(), Login: login, DisplayName: display, Email: email, AuthSource: "local",
		PasswordHash: hash, IsActive: true, IsCoreAdmin: in.IsCoreAdmin, CreatedAt: now, UpdatedAt: now}
	if err := s.st.insert(ctx, u); err != nil {
		if store.IsUnique(err) {
			return nil, fault.Conflict("login %q is already taken", login).With("field", "login")
		}
		return nil, err
	}
	audit.Record(ctx, audit.Entry{Action: audit.UserCreate, ResourceType: "user", ResourceID: u.ID, After: u.auditView()})
	return u, nil
}

// auditView is what the audit log keeps of a user's card.
func (u *User) auditView() map[string]any {
	return map[string]any{"login": u.Login, "displayName": u.DisplayName, "email": u.Email, "authSource": u.AuthSource,
		"isActive": u.IsActive, "isCoreAdmin": u.IsCoreAdmin}
}

// Patch is the input of Update; nil fields stay as they are.
type Patch struct {
	DisplayName *string
	Email       *string
	IsActive    *bool
	IsCoreAdmin *bool
	// ManagerUserID sets the user's manager (org chart); "" clears it.
	ManagerUserID *string
}

// Update changes a user's card. Removing the administrator flag (or
// deactivating an administrator) is refused for oneself, for the bootstrap
// account and for the last active administrator.
func (s *Service) Update(ctx context.Context, actor *auth.Principal, id string, p Patch) (*User, error) {
	var out *User
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		u, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		if u.IsSystem {
			return fault.Forbidden("the system account cannot be changed")
		}
		before := u.auditView()
		oldName := u.DisplayName
		if p.DisplayName != nil {
			if u.DisplayName, err = checkDisplayName(*p.DisplayName, u.Login); err != nil {
				return err
			}
		}
		if p.Email != nil {
			if u.Email, err = checkEmail(*p.Email); err != nil {
				return err
			}
		}
		losesAdmin := u.IsCoreAdmin && u.IsActive &&
			(p.IsCoreAdmin != nil && !*p.IsCoreAdmin || p.IsActive != nil && !*p.IsActive)
		if losesAdmin {
			field := "isCoreAdmin"
			if p.IsCoreAdmin == nil || *p.IsCoreAdmin {
				field = "isActive"
			}
			if err := s.checkAdminRemoval(ctx, actor, u, field); err != nil {
				return err
			}
		}
		// Deactivation and loss of the administrator role end every session
		// of the user for good: re-activation does not revive old tokens.
		revoke := u.IsActive && p.IsActive != nil && !*p.IsActive ||
			u.IsCoreAdmin && p.IsCoreAdmin != nil && !*p.IsCoreAdmin
		if p.IsActive != nil {
			u.IsActive = *p.IsActive
		}
		if p.IsCoreAdmin != nil {
			u.IsCoreAdmin = *p.IsCoreAdmin
		}
		u.UpdatedAt = s.now().UTC()
		if err := s.st.updateProfile(ctx, u, revoke); err != nil {
			return err
		}
		if p.ManagerUserID != nil {
			if err := s.setManager(ctx, u, *p.ManagerUserID); err != nil {
				return err
			}
		}
		if revoke {
			u.TokenVersion++
		}
		if u.DisplayName != oldName {
			if err := principals.Renamed(ctx, s.db, u.ID); err != nil {
				return err
			}
		}
		s.changed(ctx, u.ID)
		audit.Record(ctx, audit.Entry{Action: audit.UserUpdate, ResourceType: "user", ResourceID: u.ID, Before: before, After: u.auditView()})
		out = u
		return nil
	})
	return out, err
}

func (s *Service) checkAdminRemoval(ctx context.Context, actor *auth.Principal, u *User, field string) error {
	if actor != nil && actor.UserID == u.ID {
		return fault.Validation(field, "administrators cannot remove their own administrator role or deactivate themselves")
	}
	if u.IsSeedAdmin {
		return fault.Validation(field, "the bootstrap administrator %q always keeps the administrator role", u.Login)
	}
	ids, err := s.st.activeAdminIDs(ctx)
	if err != nil {
		return err
	}
	if len(ids) <= 1 {
		return fault.Validation(field, "%q is the last administrator; make another user administrator first", u.Login)
	}
	return nil
}

// ResetPassword sets a new password for a local user.
func (s *Service) ResetPassword(ctx context.Context, id, password string) error {
	u, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if err := auth.CheckPasswordPolicy("password", password, u.Login, u.Email); err != nil {
		return err
	}
	if u.IsSystem {
		return fault.Forbidden("the system account has no password")
	}
	if u.AuthSource != "local" {
		return fault.Validation("password", "the password of a domain user is managed by the directory")
	}
	if s.serviceAccount == nil {
		// no service accounts in this process
	} else if svc, err := s.serviceAccount(ctx, id); err != nil {
		return err
	} else if svc {
		return fault.Validation("password", "a service account has no usable password: it signs in only with its tokens")
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	if err := s.st.setPassword(ctx, id, hash, s.now().UTC()); err != nil {
		return err
	}
	s.changed(ctx, id)
	audit.Record(ctx, audit.Entry{Action: audit.UserPassword, ResourceType: "user", ResourceID: id, Details: map[string]any{"login": u.Login}})
	return nil
}

// SetPasswordByLogin is the CLI's `user set-password`.
func (s *Service) SetPasswordByLogin(ctx context.Context, login, password string) error {
	u, err := s.st.byLogin(ctx, login)
	if store.IsNotFound(err) {
		return fault.NotFound("user " + login)
	}
	if err != nil {
		return err
	}
	return s.ResetPassword(ctx, u.ID, password)
}

// List returns one page of users (the system account is never listed).
func (s *Service) List(ctx context.Context, q string, isAdmin *bool, offset, limit int) ([]Summary, int, error) {
	rows, total, err := s.st.list(ctx, listFilter{Q: q, IsAdmin: isAdmin, Offset: offset, Limit: limit})
	if err != nil {
		return nil, 0, err
	}
	out := make([]Summary, len(rows))
	for i, u := range rows {
		out[i] = u.summary()
	}
	return out, total, nil
}

// Bootstrap creates the bootstrap administrator and the system account when
// missing. It returns the generated password when one was made.
func (s *Service) Bootstrap(ctx context.Context, seedLogin, seedPassword string) (generated string, err error) {
	now := s.now().UTC()
	sys := &User{ID: uuid.NewString(), Login: SystemLogin, DisplayName: "System", AuthSource: "local",
		IsActive: true, IsCoreAdmin: true, IsSystem: true, CreatedAt: now, UpdatedAt: now}
	if err := s.st.insert(ctx, sys); err != nil && !store.IsUnique(err) {
		return "", fmt.Errorf("create system account: %w", err)
	}
	if _, err := s.st.byLogin(ctx, seedLogin); err == nil {
		return "", nil
	} else if !store.IsNotFound(err) {
		return "", err
	}
	password := seedPassword
	if password != "" {
		if err := auth.CheckPasswordPolicy("SEED_ADMIN_PASSWORD", password, seedLogin); err != nil {
			return "", fmt.Errorf("bootstrap administrator: %w", err)
		}
	}
	if password == "" {
		password = auth.RandomPassword()
		generated = password
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return "", err
	}
	admin := &User{ID: uuid.NewString(), Login: strings.TrimSpace(seedLogin), DisplayName: "Administrator", AuthSource: "local",
		PasswordHash: hash, IsActive: true, IsCoreAdmin: true, IsSeedAdmin: true, CreatedAt: now, UpdatedAt: now}
	if err := s.st.insert(ctx, admin); err != nil {
		if store.IsUnique(err) { // another instance won the race
			return "", nil
		}
		return "", fmt.Errorf("create bootstrap administrator: %w", err)
	}
	return generated, nil
}

// SystemPrincipal returns the principal of core-system (for jobs).
func (s *Service) SystemPrincipal(ctx context.Context) (*auth.Principal, error) {
	u, err := s.st.byLogin(ctx, SystemLogin)
	if err != nil {
		return nil, fmt.Errorf("load system account: %w", err)
	}
	return &auth.Principal{UserID: u.ID, Login: u.Login, DisplayName: u.DisplayName, IsAdmin: true, IsSystem: true}, nil
}

func checkLogin(login string) error {
	if login == "" {
		return fault.Validation("login", "login is required")
	}
	if utf8.RuneCountInString(login) > 100 {
		return fault.Validation("login", "login must have at most 100 characters")
	}
	for _, r := range login {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-@", r)) {
			return fault.Validation("login", "login may contain letters, digits and . _ - @ only")
		}
	}
	if strings.EqualFold(login, SystemLogin) {
		return fault.Validation("login", "login %q is reserved", SystemLogin)
	}
	return nil
}

func checkDisplayName(name, login string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return login, nil
	}
	if utf8.RuneCountInString(name) > 200 {
		return "", fault.Validation("displayName", "displayName must have at most 200 characters")
	}
	return name, nil
}

func checkEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", nil
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", fault.Validation("email", "email %q is not a valid address", email)
	}
	return email, nil
}

// setManager sets (or with "" clears) the manager of u: an existing user
// other than u. Directory sync sets it again for directory users on its
// next run.
func (s *Service) setManager(ctx context.Context, u *User, managerID string) error {
	if managerID != "" {
		if _, err := uuid.Parse(managerID); err != nil {
			return fault.Validation("managerUserId", "managerUserId must be a UUID or empty")
		}
		if managerID == u.ID {
			return fault.Validation("managerUserId", "a user cannot be their own manager")
		}
		m, err := s.st.byID(ctx, managerID)
		if store.IsNotFound(err) || err == nil && m.IsSystem {
			return fault.Validation("managerUserId", "no such user")
		}
		if err != nil {
			return err
		}
	}
	if err := s.st.setManager(ctx, u.ID, managerID); err != nil {
		return err
	}
	u.ManagerUserID = managerID
	return nil
}
