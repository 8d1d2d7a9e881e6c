// Package apppass keeps app passwords: secrets a user creates for WebDAV
// clients and scripts, so that they never hold the user's real password.
// An app password is shown once, stored as SHA-256 (it is 256 random bits,
// so a slow hash adds nothing), scoped read-only or read-write, usable as
// the password of HTTP Basic on /dav/ and as a bearer token of the REST
// API. Every use reads the database, so a revocation holds at once on every
// instance. An app password belongs to the owner's token generation: a
// password change or reset and a deactivation end it for good (as they end
// sessions). The audit log records creation, use from a new address and
// revocation.
package apppass

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Scopes.
const (
	ReadOnly  = "read-only"
	ReadWrite = "read-write"
)

// Audit actions.
const (
	ActionCreate = "auth.app_password_created"
	ActionUse    = "auth.app_password_new_address"
	ActionRevoke = "auth.app_password_revoked"
)

// maxPerUser bounds the app passwords of one user; maxAddresses the
// addresses remembered per password (older ones are forgotten).
const (
	maxPerUser   = 50
	maxAddresses = 20
)

// AppPassword is the API record (never the secret nor its hash).
type AppPassword struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope" enum:"read-only,read-write"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt" doc:"null until first used (updated at most once a minute)"`
}

// AppPasswordCreated is the answer of Create: the record and the password, shown once.
type AppPasswordCreated struct {
	AppPassword
	Password string `json:"password" doc:"the app password; shown only in this answer"`
}

// Service keeps app passwords.
type Service struct {
	db    *store.DB
	auth  *auth.Service
	now   func() time.Time
	mu    sync.Mutex
	touch map[string]time.Time // last-used writes of this instance, by id
}

// New returns the service; it plugs app passwords into a as bearer tokens.
func New(db *store.DB, a *auth.Service) *Service {
	s := &Service{db: db, auth: a, now: time.Now, touch: map[string]time.Time{}}
	a.AddTokenResolver(func(ctx context.Context, token string) (*auth.Principal, bool, error) {
		if !strings.HasPrefix(token, auth.AppTokenPrefix) {
			return nil, false, nil
		}
		p, err := s.Bearer(ctx, token)
		return p, true, err
	})
	a.AddCredentialCheck(auth.CredentialAppPassword, s.Live)
	return s
}

func hash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Create makes an app password of the caller. It needs a session signed in
// with the real password (an app password cannot make others).
func (s *Service) Create(ctx context.Context, p *auth.Principal, name, scope string) (AppPasswordCreated, error) {
	if p.TokenID == "" {
		return AppPasswordCreated{}, fault.Forbidden("app passwords are created from a signed-in session, not with an app password")
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 100 {
		return AppPasswordCreated{}, fault.Validation("name", "name must have 1 to 100 characters")
	}
	if scope != ReadOnly && scope != ReadWrite {
		return AppPasswordCreated{}, fault.Validation("scope", "scope must be read-only or read-write")
	}
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM app_passwords WHERE user_id = ?`, p.UserID).Scan(&n); err != nil {
		return AppPasswordCreated{}, err
	}
	if n >= maxPerUser {
		return AppPasswordCreated{}, fault.Conflict("at most %d app passwords per user; revoke one first", maxPerUser)
	}
	id := strings.ToLower(strings.NewReplacer("-", "a", "_", "b").Replace(random(9)))
	token := auth.AppTokenPrefix + id + "_" + random(32)
	now := s.now().UTC().Truncate(time.Microsecond)
	if _, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO app_passwords (id, user_id, name, scope, hash, addresses, token_version, created_at) VALUES (?, ?, ?, ?, ?, '[]', ?, ?)`,
		id, p.UserID, name, scope, hash(token), p.TokenVersion, now); err != nil {
		return AppPasswordCreated{}, fmt.Errorf("store app password: %w", err)
	}
	audit.Record(ctx, audit.Entry{Action: ActionCreate, ResourceType: "app_password", ResourceID: id, Details: map[string]any{"name": name, "scope": scope}})
	return AppPasswordCreated{AppPassword: AppPassword{ID: id, Name: name, Scope: scope, CreatedAt: now}, Password: token}, nil
}

// List returns the caller's app passwords, newest first.
func (s *Service) List(ctx context.Context, p *auth.Principal) ([]AppPassword, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, name, scope, created_at, last_used_at FROM app_passwords WHERE user_id = ? ORDER BY created_at DESC, id`, p.UserID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []AppPassword{}
	for rows.Next() {
		var a AppPassword
		var used sql.NullTime
		if err := rows.Scan(&a.ID, &a.Name, &a.Scope, &a.CreatedAt, &used); err != nil {
			return nil, err
		}
		a.CreatedAt = a.CreatedAt.UTC()
		if used.Valid {
			t := used.Time.UTC()
			a.LastUsedAt = &t
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Revoke deletes one of the caller's app passwords (404 when not theirs).
func (s *Service) Revoke(ctx context.Context, p *auth.Principal, id string) error {
	res, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM app_passwords WHERE id = ? AND user_id = ?`, strings.TrimSpace(id), p.UserID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.NotFound("app password")
	}
	audit.Record(ctx, audit.Entry{Action: ActionRevoke, ResourceType: "app_password", ResourceID: id})
	return nil
}

var errBad = fault.Unauthorized("invalid or revoked app password")

// Bearer resolves an app password presented as a bearer token.
func (s *Service) Bearer(ctx context.Context, token string) (*auth.Principal, error) {
	return s.Check(ctx, "", token, auth.ClientFrom(ctx).Address)
}

// Check resolves an app password (login, when not empty, must be its
// owner's); fault UNAUTHORIZED when it is unknown, revoked or not theirs.
func (s *Service) Check(ctx context.Context, login, token, address string) (*auth.Principal, error) {
	rest, ok := strings.CutPrefix(token, auth.AppTokenPrefix)
	id, _, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || id == "" {
		return nil, errBad
	}
	var user, name, scope, stored, addrs string
	var version int
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT user_id, name, scope, hash, addresses, token_version FROM app_passwords WHERE id = ?`, id).
		Scan(&user, &name, &scope, &stored, &addrs, &version)
	if errors.Is(err, sql.ErrNoRows) || store.IsNotFound(err) {
		return nil, errBad
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(stored), []byte(hash(token))) != 1 {
		return nil, errBad
	}
	p, err := s.auth.PrincipalFor(ctx, user)
	if err != nil {
		return nil, err
	}
	if login != "" && !strings.EqualFold(login, p.Login) {
		return nil, errBad
	}
	// A password change or reset and a deactivation move the owner to a new
	// token generation: app passwords of an older one are dead for good,
	// like the sessions of that generation.
	if version != p.TokenVersion {
		return nil, errBad
	}
	p.Credential = &auth.Credential{Kind: auth.CredentialAppPassword, ID: id, Name: name, ReadOnly: scope == ReadOnly}
	s.used(ctx, p, id, addrs, address)
	return p, nil
}

// used records the use: last-used time (at most once a minute per
// instance) and, from an address not seen before, an audit record.
func (s *Service) used(ctx context.Context, p *auth.Principal, id, addrs, address string) {
	now := s.now().UTC()
	var seen []string
	_ = json.Unmarshal([]byte(addrs), &seen)
	fresh := address != "" && !slices.Contains(seen, address)
	s.mu.Lock()
	last := s.touch[id]
	due := fresh || now.Sub(last) > time.Minute
	if due {
		s.touch[id] = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if fresh {
		seen = append(seen, address)
		if len(seen) > maxAddresses {
			seen = seen[len(seen)-maxAddresses:]
		}
		b, _ := json.Marshal(seen)
		_, _ = s.db.W(ctx).ExecContext(ctx, `UPDATE app_passwords SET last_used_at = ?, addresses = ? WHERE id = ?`, now, string(b), id)
		audit.Record(auth.WithPrincipal(ctx, p), audit.Entry{Action: ActionUse, ResourceType: "app_password", ResourceID: id,
			Actor: &audit.Actor{ID: p.UserID, Login: p.Login, Address: address}, Details: map[string]any{"address": address}})
		return
	}
	_, _ = s.db.W(ctx).ExecContext(ctx, `UPDATE app_passwords SET last_used_at = ? WHERE id = ?`, now, id)
}

// Live checks that the app password of that id still exists (not revoked):
// fault UNAUTHORIZED otherwise. Office access tokens minted with an app
// password recheck it on every WOPI call.
func (s *Service) Live(ctx context.Context, id string) error {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM app_passwords WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return errBad
	}
	return nil
}
