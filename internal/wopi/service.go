package wopi

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/filelock"
	"coreportal/internal/libraries"
)

// Users turns a user id into the principal WOPI calls act as, with the
// account's current TokenVersion (fault.NotFound or an error for a missing
// or inactive user).
type Users func(ctx context.Context, id string) (*auth.Principal, error)

// Credentials says whether the credential of that kind and id (an app
// password, a service token) still exists and is valid: nil when it is.
type Credentials func(ctx context.Context, kind, id string) error

// Config configures the host.
type Config struct {
	OfficeURL string        // CORE_OFFICE_URL; empty = not configured
	PublicURL string        // CORE_PUBLIC_URL; empty = from each request
	Secret    string        // signs access tokens (CORE_JWT_SECRET)
	TokenTTL  time.Duration // lifetime of an access token
	LockTTL   time.Duration // WOPI locks last 30 minutes unless refreshed
	Client    *http.Client
}

// Service is the WOPI host.
type Service struct {
	cfg   Config
	disc  *discoverer
	sign  signer
	lib   *libraries.Service
	acl   *acl.Engine
	locks *filelock.Store
	users Users
	creds Credentials
	now   func() time.Time
}

// UseCredentials sets the check of the app password or service token a
// WOPI token was minted with (on every WOPI call).
func (s *Service) UseCredentials(c Credentials) { s.creds = c }

// New builds the host over the libraries service (its lock store is the
// WebDAV one).
func New(cfg Config, lib *libraries.Service, engine *acl.Engine, users Users) *Service {
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 2 * time.Hour
	}
	if cfg.LockTTL <= 0 {
		cfg.LockTTL = 30 * time.Minute
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 15 * time.Second}
	}
	s := &Service{cfg: cfg, sign: newSigner(cfg.Secret), lib: lib, acl: engine, locks: lib.Locks(), users: users, now: time.Now}
	s.disc = &discoverer{base: strings.TrimRight(cfg.OfficeURL, "/"), client: cfg.Client, now: s.now}
	return s
}

// Status is the discovery part of the administration's Office status.
type Status struct {
	Discovery bool     `json:"discovery" doc:"the document server's WOPI discovery ({url}/hosting/discovery) was read"`
	FileTypes []string `json:"fileTypes" doc:"file extensions the document server opens (from its discovery)"`
	ProofKey  bool     `json:"proofKey" doc:"the discovery publishes a proof key (WOPI requests are then checked when they carry a proof)"`
	Error     string   `json:"discoveryError,omitempty"`
}

// Status reads the discovery afresh and says what it offers.
func (s *Service) Status(ctx context.Context) Status {
	out := Status{FileTypes: []string{}}
	if s.disc.base == "" {
		return out
	}
	d, err := s.disc.get(ctx, true)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Discovery, out.FileTypes, out.ProofKey = true, d.Extensions(), d.Proof != nil
	return out
}

// EditOut is the answer of GET .../edit.
type EditOut struct {
	URL            string `json:"url" doc:"the editor's address (the discovery's urlsrc with WOPISrc): open it by a form POST of access_token and access_token_ttl"`
	AccessToken    string `json:"accessToken" doc:"for this user and this file only"`
	AccessTokenTTL int64  `json:"accessTokenTtl" doc:"the token's end, milliseconds since 1970 (WOPI access_token_ttl)"`
	Mode           string `json:"mode" enum:"edit,view" doc:"edit with the edit right on the file, view with view only"`
	FileType       string `json:"fileType" doc:"the file's extension"`
	WOPISrc        string `json:"wopiSrc" doc:"the file's WOPI address on this host"`
}

var placeholder = regexp.MustCompile(`<[^>]*>`)

// Edit gives the caller the editor address and an access token for one
// file: view on the file is needed; the token allows writing when the
// caller has edit and did not sign in with a read-only credential (a
// read-only app password or a service token of scope read: view mode).
func (s *Service) Edit(ctx context.Context, p *auth.Principal, libraryID, ref, base string) (EditOut, error) {
	f, err := s.lib.File(ctx, p, libraryID, ref)
	if err != nil {
		return EditOut{}, err
	}
	if f.ItemType != libraries.TypeFile {
		return EditOut{}, fault.Validation("fileRef", "a folder cannot be opened in the Office editor")
	}
	if s.disc.base == "" {
		return EditOut{}, fault.Unavailable("no Office editor is configured (CORE_OFFICE_URL)")
	}
	lvl, err := s.acl.Level(ctx, p, acl.Ref{Type: acl.File, ID: f.GUID})
	if err != nil {
		return EditOut{}, err
	}
	d, err := s.disc.get(ctx, false)
	if d == nil {
		return EditOut{}, fault.Unavailable("the Office editor's discovery cannot be read: %v", err)
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(f.Name), "."))
	acts := d.Actions[ext]
	if len(acts) == 0 {
		return EditOut{}, fault.Validation("fileRef", "the Office editor does not open .%s files", ext)
	}
	write := lvl >= acl.Edit && !p.ReadOnlyCredential()
	mode, src := "view", acts["view"]
	if write && acts["edit"] != "" {
		mode, src = "edit", acts["edit"]
	} else if write {
		write = false
	}
	if src == "" { // no view action: the edit action with UserCanWrite false opens read-only
		src = acts["edit"]
		for _, u := range acts {
			if src == "" {
				src = u
			}
		}
	}
	exp := s.now().Add(s.cfg.TokenTTL)
	tok := s.sign.sign(mint(p, f.GUID, libraryID, write, exp))
	wopiSrc := s.publicBase(base) + "/wopi/files/" + f.GUID
	u := placeholder.ReplaceAllString(src, "")
	if !strings.HasSuffix(u, "?") && !strings.HasSuffix(u, "&") {
		if strings.Contains(u, "?") {
			u += "&"
		} else {
			u += "?"
		}
	}
	u += "WOPISrc=" + url.QueryEscape(wopiSrc)
	return EditOut{URL: u, AccessToken: tok, AccessTokenTTL: exp.UnixMilli(), Mode: mode, FileType: ext, WOPISrc: wopiSrc}, nil
}

// mint is the claims of a token for p on one file.
func mint(p *auth.Principal, file, library string, write bool, exp time.Time) claims {
	c := claims{User: p.UserID, File: file, Library: library, Write: write, Expires: exp.UnixMilli(), Version: p.TokenVersion}
	if p.Credential != nil {
		c.CredKind, c.CredID = p.Credential.Kind, p.Credential.ID
	}
	return c
}

// publicBase is CORE_PUBLIC_URL or the request's own origin.
func (s *Service) publicBase(fromRequest string) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	return fromRequest
}

// requestBase is the origin a request was sent to.
func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
