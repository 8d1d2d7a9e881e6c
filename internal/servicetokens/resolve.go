package servicetokens

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// readUseEvery is how often a read with one token is recorded (per instance):
// writes are recorded every time.
const readUseEvery = time.Minute

// Resolve is the auth.TokenResolver of service tokens: a token with Prefix
// is checked against the database on every request (revoked, expired,
// account deactivated, or deactivated since the token was issued).
func (s *Service) Resolve(ctx context.Context, token string) (*auth.Principal, bool, error) {
	if !strings.HasPrefix(token, Prefix) {
		return nil, false, nil
	}
	bad := fault.Unauthorized("invalid, expired or revoked service token")
	t, version, err := s.st.byHash(ctx, hashOf(token))
	if store.IsNotFound(err) {
		return nil, true, bad
	} else if err != nil {
		return nil, true, err
	}
	now := s.now()
	if t.RevokedAt != nil || (t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)) {
		return nil, true, bad
	}
	acc, err := s.users.AccountByID(ctx, t.AccountID)
	// A deactivation moves the account to a new token generation: tokens
	// issued before it stay dead after a reactivation.
	if err != nil || !acc.IsActive || acc.IsSystem || acc.TokenVersion != version {
		return nil, true, bad
	}
	return &auth.Principal{UserID: acc.ID, Login: acc.Login, DisplayName: acc.DisplayName, IsAdmin: acc.IsAdmin,
		TokenVersion: acc.TokenVersion, Credential: &auth.Credential{Kind: Kind, ID: t.ID, Name: t.Name, ReadOnly: t.Scope == ScopeRead}}, true, nil
}

// Middleware (after the auth middleware) refuses writes with read-scoped
// tokens (403) and records service-token use in the audit log: every write,
// and reads at most once a minute per token, with method, path and status.
func (s *Service) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		if p == nil || p.Credential == nil || p.Credential.Kind != Kind {
			next.ServeHTTP(w, r)
			return
		}
		write := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
		if write && p.Credential.ReadOnly {
			s.recordUse(r, p, http.StatusForbidden, "failure")
			web.WriteError(w, r, fault.Forbidden("this service token is read-only (scope read): writes are refused"))
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		if write || s.readDue(p.Credential.ID) {
			s.recordUse(r, p, sw.status, "success")
		}
	})
}

func (s *Service) readDue(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if now.Sub(s.lastSeen[id]) < readUseEvery {
		return false
	}
	s.lastSeen[id] = now
	return true
}

func (s *Service) recordUse(r *http.Request, p *auth.Principal, status int, outcome string) {
	ctx := context.WithoutCancel(r.Context())
	if status >= 400 && outcome == "success" {
		outcome = "failure"
	}
	audit.Record(ctx, audit.Entry{Action: "serviceToken.use", ResourceType: "service_token", ResourceID: p.Credential.ID, Outcome: outcome,
		Details: map[string]any{"keyName": p.Credential.Name, "method": r.Method, "path": r.URL.Path, "status": status,
			"readOnly": p.Credential.ReadOnly}})
	if err := s.st.touch(ctx, p.Credential.ID, s.now().UTC()); err != nil {
		slog.WarnContext(ctx, "service token last use not recorded", "err", err)
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Live checks that the token of that id still works (not revoked nor
// expired): fault UNAUTHORIZED otherwise. Office access tokens minted with
// a service token recheck it on every WOPI call.
func (s *Service) Live(ctx context.Context, id string) error {
	t, err := scanToken(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+tokCols+` FROM service_tokens WHERE id = ?`, id))
	if store.IsNotFound(err) {
		return fault.Unauthorized("invalid, expired or revoked service token")
	} else if err != nil {
		return err
	}
	if t.RevokedAt != nil || (t.ExpiresAt != nil && !s.now().Before(*t.ExpiresAt)) {
		return fault.Unauthorized("invalid, expired or revoked service token")
	}
	return nil
}
