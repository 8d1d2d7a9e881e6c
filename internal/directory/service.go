package directory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/groups"
	"coreportal/internal/services"
	"coreportal/internal/settings"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// Service holds the rules of the directory capability.
type Service struct {
	db       *store.DB
	services *services.Service
	users    *users.Service
	groups   *groups.Service
	blobs    blob.Store
	settings *settings.Store
	syncing  sync.Mutex
	now      func() time.Time
	// cached is the config for the hot read paths (profiles, cards): at most
	// cacheTTL old on other instances, dropped at once by a local change.
	cached atomic.Pointer[cachedConfig]
	// allowed are the directory hosts of CORE_DIRECTORY_ALLOWED_HOSTS (none = any).
	allowed HostPatterns
}

// SetAllowedHosts restricts the directory servers to patterns (none = any).
func (s *Service) SetAllowedHosts(patterns HostPatterns) { s.allowed = patterns }

type cachedConfig struct {
	c  Config
	at time.Time
}

const cacheTTL = 5 * time.Second

// recent returns the config from a short-lived cache.
func (s *Service) recent(ctx context.Context) (Config, error) {
	if p := s.cached.Load(); p != nil && s.now().Sub(p.at) < cacheTTL {
		return p.c, nil
	}
	c, err := s.config(ctx)
	if err == nil && !store.InTransaction(ctx) {
		s.cached.Store(&cachedConfig{c: c, at: s.now()})
	}
	return c, err
}

// New builds the directory service.
// db is only used to group the sync's writes into transactions.
// st keeps the sync lease that lets one instance sync at a time.
func New(db *store.DB, st *settings.Store, svc *services.Service, u *users.Service, g *groups.Service, blobs blob.Store) *Service {
	return &Service{db: db, settings: st, services: svc, users: u, groups: g, blobs: blobs, now: time.Now}
}

// config reads the stored settings (bind password included).
func (s *Service) config(ctx context.Context) (Config, error) {
	raw, err := s.services.Config(ctx, services.KeyADSync)
	if err != nil {
		return Config{}, fmt.Errorf("read directory settings: %w", err)
	}
	var c Config
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &c); err != nil {
			return Config{}, fmt.Errorf("decode directory settings: %w", err)
		}
	}
	return c, nil
}

func (s *Service) update(ctx context.Context, fn func(Config) (Config, error)) (Config, error) {
	var out Config
	err := s.services.UpdateConfig(ctx, services.KeyADSync, func(old json.RawMessage) (any, error) {
		var c Config
		if len(old) > 0 {
			if err := json.Unmarshal(old, &c); err != nil {
				return nil, fmt.Errorf("decode directory settings: %w", err)
			}
		}
		next, err := fn(c)
		out = next
		return next, err
	})
	if err == nil {
		store.AfterCommit(ctx, func() { s.cached.Store(nil) })
	}
	return out, err
}

// Configured is the cheap availability check of service ad-sync (no network).
func (s *Service) Configured(ctx context.Context) bool {
	c, err := s.config(ctx)
	return err == nil && c.Configured()
}

// CardFields is the personCardVisibleFields setting (for profiles).
func (s *Service) CardFields(ctx context.Context) []string {
	c, err := s.recent(ctx)
	if err != nil {
		return users.DefaultCardFields
	}
	return c.cardFields()
}

// AttributeSchema is the effective sync field schema (attribute_schema of a
// user's full card): the core columns, the synchronised catalog keys with
// their effective LDAP attributes, and the custom attributes.
func (s *Service) AttributeSchema(ctx context.Context) []users.Attribute {
	c, _ := s.recent(ctx)
	var out []users.Attribute
	for _, it := range c.catalog() {
		if it.IsCoreColumn || c.syncs(it.Key) {
			out = append(out, users.Attribute{Key: it.Key, LDAPAttr: it.LDAPAttr, Label: it.Label, IsCoreColumn: it.IsCoreColumn, IsBuiltin: true})
		}
	}
	for _, ca := range c.CustomUserAttributes {
		out = append(out, users.Attribute{Key: ca.Key, LDAPAttr: ca.LDAPAttr, Label: ca.Label})
	}
	return out
}

// Connection returns the connection settings.
func (s *Service) Connection(ctx context.Context) (ConnectionSettings, error) {
	c, err := s.config(ctx)
	return c.connectionView(), err
}

// PutConnection replaces the connection settings.
func (s *Service) PutConnection(ctx context.Context, in ConnectionInput) (ConnectionSettings, error) {
	raw := Config{BindDN: in.BindDN, BaseDN: in.BaseDN, UserFilter: in.UserFilter, SearchFilter: in.SearchFilter}
	if in.BindPassword != nil {
		raw.BindPassword = *in.BindPassword
	}
	if err := checkConnectionValues(raw); err != nil {
		return ConnectionSettings{}, err
	}
	c, err := s.update(ctx, func(old Config) (Config, error) {
		c, err := in.applyConnection(old)
		if err != nil {
			return c, err
		}
		if err := checkConnectionValues(c); err != nil {
			return c, err
		}
		return c, s.allowed.checkHost(c.URL)
	})
	if err != nil {
		return ConnectionSettings{}, err
	}
	return c.connectionView(), nil
}

// Sync returns the sync settings.
func (s *Service) SyncSettings(ctx context.Context) (SyncSettings, error) {
	c, err := s.config(ctx)
	return c.syncView(), err
}

// PutSync replaces the sync settings.
func (s *Service) PutSync(ctx context.Context, in SyncInput) (SyncSettings, error) {
	if err := checkSyncValues(Config{SyncFilter: in.SyncFilter, GroupSyncFilter: in.GroupSyncFilter}); err != nil {
		return SyncSettings{}, err
	}
	c, err := s.update(ctx, func(old Config) (Config, error) {
		c, err := in.applySync(old)
		if err != nil {
			return c, err
		}
		return c, checkSyncValues(c)
	})
	if err != nil {
		return SyncSettings{}, err
	}
	return c.syncView(), nil
}

// Status is GET /admin/settings/ldap-status.
type Status struct {
	Configured bool   `json:"configured"`
	Connected  bool   `json:"connected" doc:"a connection and a bind as the service account succeeded just now"`
	URL        string `json:"url"`
	BaseDN     string `json:"baseDn"`
	Error      string `json:"error" doc:"why connected is false, in words; empty when connected"`
	LatencyMs  int64  `json:"latencyMs" doc:"time of the check"`
}

// Status connects and binds within connectTimeoutMs and reads the base DN.
func (s *Service) Status(ctx context.Context) (Status, error) {
	c, err := s.config(ctx)
	if err != nil {
		return Status{}, err
	}
	st := Status{Configured: c.Configured(), URL: c.URL, BaseDN: c.BaseDN}
	if !st.Configured {
		st.Error = "the directory connection is not configured (url, baseDn, bindDn and bindPassword are required)"
		return st, nil
	}
	start := s.now()
	err = s.check(ctx, c)
	st.LatencyMs = s.now().Sub(start).Milliseconds()
	if err != nil {
		st.Error = message(err)
		return st, nil
	}
	st.Connected = true
	return st, nil
}

// Check is the enable check of ad-sync: configured and the connection check passes.
func (s *Service) Check(ctx context.Context) error {
	c, err := s.config(ctx)
	if err != nil {
		return err
	}
	if !c.Configured() {
		return fault.Validation("url", "the directory connection is not configured")
	}
	return s.check(ctx, c)
}

func (s *Service) check(ctx context.Context, c Config) error {
	cn, err := s.dial(ctx, c, c.timeout())
	if err != nil {
		return err
	}
	defer cn.close()
	_, err = cn.Search(ldap.NewSearchRequest(c.BaseDN, ldap.ScopeBaseObject, ldap.NeverDerefAliases, 1, c.timeoutMs()/1000+1, false,
		"(objectClass=*)", []string{"1.1"}, nil))
	if ldap.IsErrorWithCode(err, ldap.LDAPResultNoSuchObject) {
		return fault.Unavailable("the base DN %s does not exist in the directory", c.BaseDN)
	}
	if err != nil {
		return answerError(ctx, c, err)
	}
	return nil
}

func message(err error) string {
	if fe, ok := fault.As(err); ok {
		return fe.Message
	}
	return "the directory check failed"
}

// detail is the text of an error in a sync result (administrators only).
func detail(err error) string {
	if fe, ok := fault.As(err); ok {
		return fe.Message
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// Person is one result of the directory search.
type Person struct {
	Login         string  `json:"login"`
	DisplayName   string  `json:"displayName"`
	Email         string  `json:"email"`
	Department    string  `json:"department"`
	Title         string  `json:"title"`
	ExternalID    string  `json:"externalId" doc:"objectSid as S-1-5-…, else the id attribute (entryUUID)"`
	DN            string  `json:"dn"`
	ExistsLocally bool    `json:"existsLocally" doc:"a portal user with this directory id (or this domain login) exists"`
	UserID        *string `json:"userId" format:"uuid" doc:"the portal user when existsLocally"`
}

// SearchResult is GET /directory/search.
type SearchResult struct {
	People    []Person `json:"people"`
	Limit     int      `json:"limit"`
	Truncated bool     `json:"truncated" doc:"more entries match than searchLimit"`
}

// Search finds people with searchFilter ({{query}} escaped per RFC 4515),
// at most searchLimit of them.
func (s *Service) Search(ctx context.Context, q string) (SearchResult, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return SearchResult{}, fault.Validation("q", "q is required")
	}
	c, err := s.config(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	if !c.Configured() {
		return SearchResult{}, fault.Conflict("the directory connection is not configured")
	}
	cn, err := s.dial(ctx, c, c.timeout())
	if err != nil {
		return SearchResult{}, err
	}
	defer cn.close()
	limit := c.searchLimit()
	req := ldap.NewSearchRequest(c.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, limit, c.timeoutMs()/1000+1, false,
		filterWith(c.searchFilter(), "{{query}}", q), c.userAttributes(false), nil)
	res, err := cn.Search(req)
	out := SearchResult{People: []Person{}, Limit: limit}
	if ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) {
		out.Truncated = true
	} else if err != nil {
		return SearchResult{}, answerError(ctx, c, err)
	}
	if res == nil {
		return out, nil
	}
	for _, e := range res.Entries {
		p := c.toPerson(e)
		if p.Login == "" || isComputer(e) {
			continue
		}
		r := Person{Login: p.Login, DisplayName: p.DisplayName, Email: p.Email, Department: e.GetEqualFoldAttributeValue(c.attr("department")),
			Title: e.GetEqualFoldAttributeValue(c.attr("title")), ExternalID: p.ExternalID, DN: e.DN}
		id, err := s.users.FindDirectoryUser(ctx, p.ExternalID, p.Login)
		if err != nil {
			return SearchResult{}, err
		}
		if id != "" {
			r.ExistsLocally, r.UserID = true, &id
		}
		out.People = append(out.People, r)
	}
	return out, nil
}

var errBadCredentials = fault.Unauthorized("invalid login or password")

// Login is domain sign-in: bind as the service account, find the user with
// userFilter ({{username}} escaped), bind as the user, then create or update
// the local domain user. Wrong login and wrong password give the same 401;
// a directory that cannot be used is 503 UNAVAILABLE "directory unavailable"
// and nothing more (the log has the detail).
func (s *Service) Login(ctx context.Context, login, password string) (auth.Account, error) {
	acc, err := s.login(ctx, login, password)
	if err != nil && !fault.Is(err, fault.CodeUnauthorized) {
		if fault.Is(err, fault.CodeValidation) && !s.Configured(ctx) {
			return acc, err // 400 on authType: not configured
		}
		return acc, forAnonymous(ctx, err)
	}
	return acc, err
}

func (s *Service) login(ctx context.Context, login, password string) (auth.Account, error) {
	if password == "" || strings.TrimSpace(login) == "" {
		return auth.Account{}, errBadCredentials // an empty password would be an unauthenticated bind
	}
	c, err := s.config(ctx)
	if err != nil {
		return auth.Account{}, err
	}
	if !c.Configured() {
		return auth.Account{}, fault.Validation("authType", "domain sign-in is not available: the directory connection is not configured")
	}
	cn, err := s.dial(ctx, c, c.timeout())
	if err != nil {
		return auth.Account{}, err
	}
	defer cn.close()
	req := ldap.NewSearchRequest(c.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 2, c.timeoutMs()/1000+1, false,
		filterWith(c.userFilter(), "{{username}}", strings.TrimSpace(login)), c.userAttributes(false), nil)
	res, err := cn.Search(req)
	if err != nil && !ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) {
		return auth.Account{}, answerError(ctx, c, err)
	}
	if res == nil || len(res.Entries) != 1 {
		if res != nil && len(res.Entries) > 1 {
			slog.WarnContext(ctx, "domain sign-in: userFilter matches several entries", "login", login)
		}
		return auth.Account{}, errBadCredentials
	}
	entry := res.Entries[0]
	if isComputer(entry) {
		return auth.Account{}, errBadCredentials
	}
	if err := cn.Bind(entry.DN, password); err != nil {
		if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) || ldap.IsErrorWithCode(err, ldap.LDAPResultUnwillingToPerform) {
			return auth.Account{}, errBadCredentials
		}
		return auth.Account{}, answerError(ctx, c, err)
	}
	p := c.toPerson(entry)
	if p.Disabled {
		return auth.Account{}, errBadCredentials
	}
	p.KeepInactive = true
	u, _, err := s.users.ApplyDirectoryEntry(ctx, p.DirectoryEntry)
	if err != nil {
		if fault.Is(err, fault.CodeConflict) || fault.Is(err, fault.CodeValidation) {
			slog.WarnContext(ctx, "domain sign-in: the directory entry cannot be used", "login", login, "err", err)
			return auth.Account{}, errBadCredentials
		}
		return auth.Account{}, err
	}
	acc, err := s.users.AccountByID(ctx, u.ID)
	if err != nil {
		return auth.Account{}, err
	}
	if !acc.IsActive {
		return auth.Account{}, errBadCredentials
	}
	return acc, nil
}
