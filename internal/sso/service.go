package sso

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/services"
)

// KeyOIDC is the service whose config holds the provider settings.
const KeyOIDC = services.KeyOIDC

// Users is what sign-in needs of the users service.
type Users interface {
	AccountByLogin(ctx context.Context, login string) (auth.Account, error)
	AccountByEmail(ctx context.Context, email string) (auth.Account, error)
	CreateSSOUser(ctx context.Context, login, displayName, email string) (auth.Account, error)
}

// Groups maps group claims to domain_linked groups.
type Groups interface {
	JoinDomainGroupsByName(ctx context.Context, userID string, names []string) ([]string, error)
}

// Sessions starts the session of a proved account.
type Sessions interface {
	StartSession(ctx context.Context, acc auth.Account, method, address string) (auth.Session, error)
}

// Service is single sign-on.
type Service struct {
	svc       *services.Service
	users     Users
	groups    Groups
	auth      Sessions
	key       []byte
	publicURL string
	providers *providers
	kerberos  *Kerberos
	now       func() time.Time
}

// New wires single sign-on; secret keys the flow cookie (derived, never the
// secret itself); publicURL (CORE_PUBLIC_URL, may be empty) is the base of
// the redirect URI.
func New(svc *services.Service, users Users, groups Groups, sessions Sessions, secret []byte, publicURL string) *Service {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("coreportal sso flow cookie"))
	s := &Service{svc: svc, users: users, groups: groups, auth: sessions, key: m.Sum(nil), publicURL: publicURL, now: time.Now}
	s.providers = &providers{client: &http.Client{Timeout: 15 * time.Second}, now: func() time.Time { return s.now() }}
	return s
}

// SetKerberos enables GET /auth/negotiate.
func (s *Service) SetKerberos(k *Kerberos) { s.kerberos = k }

func (s *Service) config(ctx context.Context) (Config, error) {
	raw, err := s.svc.Config(ctx, KeyOIDC)
	if err != nil {
		return Config{}, err
	}
	var c Config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			slog.WarnContext(ctx, "stored OpenID Connect settings unreadable", "err", err)
			return Config{}, nil
		}
	}
	return c, nil
}

func (s *Service) enabled(ctx context.Context) bool {
	on, err := s.svc.Enabled(ctx, KeyOIDC)
	return err == nil && on
}

// Settings is GET /admin/settings/oidc.
func (s *Service) Settings(ctx context.Context) (OIDCSettings, error) {
	c, err := s.config(ctx)
	return c.view(), err
}

// SaveSettings is PUT /admin/settings/oidc.
func (s *Service) SaveSettings(ctx context.Context, in OIDCSettingsInput) (OIDCSettings, error) {
	var out Config
	err := s.svc.UpdateConfig(ctx, KeyOIDC, func(raw json.RawMessage) (any, error) {
		var old Config
		_ = json.Unmarshal(raw, &old)
		c, err := in.apply(old)
		out = c
		return c, err
	})
	if err != nil {
		return OIDCSettings{}, err
	}
	return out.view(), nil
}

// SignInMethods is GET /auth/methods: the sign-in methods offered.
type SignInMethods struct {
	Password  bool        `json:"password" doc:"always true: local accounts sign in with POST /auth/login"`
	OIDC      *OIDCMethod `json:"oidc" doc:"null unless OpenID Connect is configured and service oidc is enabled"`
	Negotiate bool        `json:"negotiate" doc:"Windows integrated sign-in (GET /auth/negotiate) is configured"`
}

// OIDCMethod is the button of the sign-in screen.
type OIDCMethod struct {
	Label    string `json:"label"`
	StartURL string `json:"startUrl" doc:"open it in the browser (top-level navigation) to sign in"`
}

// Methods says which sign-in methods are offered.
func (s *Service) Methods(ctx context.Context) (SignInMethods, error) {
	m := SignInMethods{Password: true, Negotiate: s.kerberos != nil}
	c, err := s.config(ctx)
	if err != nil {
		return m, err
	}
	if c.Configured() && s.enabled(ctx) {
		m.OIDC = &OIDCMethod{Label: c.label(), StartURL: StartPath}
	}
	return m, nil
}

var errNotAllowed = fault.Unauthorized("this identity is not allowed to sign in to the portal")

// account finds or creates the account of an identity and joins its groups.
func (s *Service) account(ctx context.Context, c Config, id Identity) (auth.Account, error) {
	if len(c.AllowedDomains) > 0 && (id.Email == "" || !id.EmailVerified || !c.domainAllowed(id.Email)) {
		slog.InfoContext(ctx, "OpenID Connect sign-in refused: e-mail domain not allowed", "email", id.Email)
		return auth.Account{}, errNotAllowed
	}
	login := id.Login
	if login == "" {
		login = id.Email
	}
	if login == "" {
		slog.InfoContext(ctx, "OpenID Connect sign-in refused: no login claim", "claim", c.loginClaim())
		return auth.Account{}, errNotAllowed
	}
	var acc auth.Account
	var err error
	if c.matchBy() == MatchEmail {
		if id.Email == "" || !id.EmailVerified {
			err = fault.NotFound("user") // an unverified address never picks an account
		} else {
			acc, err = s.users.AccountByEmail(ctx, id.Email)
		}
	} else {
		acc, err = s.users.AccountByLogin(ctx, login)
	}
	if fault.Is(err, fault.CodeNotFound) {
		acc, err = s.users.CreateSSOUser(ctx, login, id.Name, id.Email)
		if fault.Is(err, fault.CodeConflict) || fault.Is(err, fault.CodeValidation) {
			slog.InfoContext(ctx, "OpenID Connect sign-in refused: the account cannot be created", "login", login, "err", err)
			return auth.Account{}, errNotAllowed
		}
		if err == nil {
			slog.InfoContext(ctx, "OpenID Connect sign-in created a user", "login", login)
		}
	}
	if err != nil {
		return auth.Account{}, err
	}
	if acc.IsSystem {
		return auth.Account{}, errNotAllowed
	}
	if _, err := s.groups.JoinDomainGroupsByName(ctx, acc.ID, id.Groups); err != nil {
		return auth.Account{}, err
	}
	return acc, nil
}
