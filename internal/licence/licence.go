// Package licence decides whether the portal may write. Without a licence
// key the portal runs in trial mode for 30 days from its first start; an
// activated key (Ed25519-signed by the vendor) makes it licensed until the
// key expires.
package licence

import (
	"context"
	"coreportal/internal/audit"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/privfs"
	"coreportal/internal/settings"
	"coreportal/internal/vendorkey"
)

// TrialDays is the length of the trial.
const TrialDays = 30

// WarnDays is the window before expiry in which the days left are logged
// daily and writes answer with a Warning header.
const WarnDays = 7

// Topic is the bus topic that tells every instance to reload the licence.
const Topic = "licence.changed"

// FileName is the key file under the data folder.
const FileName = "license.key"

const (
	settingKey   = "license_key"
	settingFirst = "first_start_at"
	settingID    = "install_id"
)

// Status is the LicenseStatusDto of SPEC.md.
type LicenseStatus struct {
	Mode              string    `json:"mode" enum:"trial,licensed,expired,invalid" doc:"trial: no key, within 30 days of the first start; licensed: a valid key; expired: trial or key past its date; invalid: the stored key fails its checks"`
	Valid             bool      `json:"valid" doc:"whether writes to the API are allowed"`
	ExpiresAt         time.Time `json:"expiresAt" doc:"end of the trial or of the key"`
	DaysRemaining     int       `json:"daysRemaining" doc:"whole days left, rounded up; 0 once expired"`
	InstallID         string    `json:"installId"`
	InstallBinding    string    `json:"installBinding" doc:"hex SHA-256 of installId, sent to the vendor"`
	Channel           string    `json:"channel" doc:"channel in the key (empty in trial)"`
	Platform          string    `json:"platform" doc:"platform in the key (empty in trial)"`
	InstalledChannel  string    `json:"installedChannel"`
	InstalledPlatform string    `json:"installedPlatform"`
	Modules           []string  `json:"modules" doc:"paid-module entitlement in force: the key's patterns while licensed, [\"*\"] during the trial, [] otherwise"`
	LicenseID         string    `json:"licenseId" doc:"id of the key (empty in trial)"`
	Customer          string    `json:"customer" doc:"customer named in the key (empty in trial)"`
	Message           string    `json:"message" doc:"what the status means and, when not valid, how to recover"`
}

// ActivationResult is the LicenseActivationResultDto of SPEC.md.
type LicenseActivationResult struct {
	License     LicenseStatus `json:"license"`
	StoragePath string        `json:"storagePath"`
	Message     string        `json:"message"`
}

// Options configure the service.
type Options struct {
	DataDir   string
	PublicKey ed25519.PublicKey // nil = the vendor's built-in key
	Channel   string            // installed channel
	Platform  string            // installed platform
	Bus       bus.Bus           // nil = no other instances to tell
}

// Service computes and caches the licence status.
type Service struct {
	settings *settings.Store
	opt      Options
	now      func() time.Time
	current  atomic.Pointer[LicenseStatus]
	key      atomic.Pointer[string]

	logMu   sync.Mutex
	lastLog string // day of the last daily status line
}

// New loads the status once; Watch and Listen keep it current.
func New(ctx context.Context, st *settings.Store, opt Options) (*Service, error) {
	if opt.PublicKey == nil {
		pub, err := vendorkey.Parse("")
		if err != nil {
			return nil, fmt.Errorf("licence: built-in key: %w", err)
		}
		opt.PublicKey = pub
	}
	s := &Service{settings: st, opt: opt, now: time.Now}
	if _, err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// StoragePath is where the activated key is written.
func (s *Service) StoragePath() string { return filepath.Join(s.opt.DataDir, FileName) }

// storedKey returns the activated key: the shared store first (so that every
// instance agrees), else a key file placed in the data folder.
func (s *Service) storedKey(ctx context.Context) (string, error) {
	if k, ok, err := s.settings.Get(ctx, settingKey); err != nil || ok {
		return k, err
	}
	b, err := os.ReadFile(s.StoragePath())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("licence: read %s: %w", s.StoragePath(), err)
	}
	return KeyText(string(b)), nil
}

func (s *Service) install(ctx context.Context) (Install, error) {
	id, err := s.settings.Init(ctx, settingID, uuid.NewString)
	if err != nil {
		return Install{}, fmt.Errorf("licence: %w", err)
	}
	return Install{ID: id, Channel: s.opt.Channel, Platform: s.opt.Platform}, nil
}

// Refresh recomputes the status from the store.
func (s *Service) Refresh(ctx context.Context) (LicenseStatus, error) {
	in, err := s.install(ctx)
	if err != nil {
		return LicenseStatus{}, err
	}
	key, err := s.storedKey(ctx)
	if err != nil {
		return LicenseStatus{}, err
	}
	var st LicenseStatus
	if key == "" {
		if st, err = s.trial(ctx, in); err != nil {
			return LicenseStatus{}, err
		}
	} else {
		st = s.licensed(key, in)
	}
	s.current.Store(&st)
	s.key.Store(&key)
	return st, nil
}

func (s *Service) base(in Install) LicenseStatus {
	return LicenseStatus{InstallID: in.ID, InstallBinding: in.Binding(), InstalledChannel: in.Channel, InstalledPlatform: in.Platform, Modules: []string{}}
}

func (s *Service) trial(ctx context.Context, in Install) (LicenseStatus, error) {
	first, err := s.settings.Init(ctx, settingFirst, func() string { return s.now().UTC().Format(time.RFC3339) })
	if err != nil {
		return LicenseStatus{}, fmt.Errorf("licence: %w", err)
	}
	start, err := time.Parse(time.RFC3339, first)
	if err != nil {
		return LicenseStatus{}, fmt.Errorf("licence: bad first_start_at %q: %w", first, err)
	}
	st := s.base(in)
	st.Mode, st.ExpiresAt = "trial", start.Add(TrialDays*24*time.Hour).UTC()
	st.DaysRemaining, st.Valid = daysLeft(st.ExpiresAt, s.now())
	if st.Valid {
		st.Modules = []string{"*"}
		st.Message = fmt.Sprintf("trial: %d day(s) left; activate a licence key before %s", st.DaysRemaining, st.ExpiresAt.Format(time.RFC3339))
	} else {
		st.Mode = "expired"
		st.Message = "the 30-day trial has ended: the portal is read-only until a licence key is activated"
	}
	return st, nil
}

func (s *Service) licensed(key string, in Install) LicenseStatus {
	st := s.base(in)
	p, err := Parse(key, s.opt.PublicKey)
	if err != nil {
		st.Mode, st.Message = "invalid", "the stored licence key is refused: "+err.Error()+"; activate a valid key"
		return st
	}
	st.LicenseID, st.Customer, st.Channel, st.Platform, st.ExpiresAt = p.LicenseID, p.Customer, p.Channel, p.Platform, p.ExpiresAt.UTC()
	st.DaysRemaining, _ = daysLeft(st.ExpiresAt, s.now())
	var ke *KeyError
	switch err := p.Check(in, s.now()); {
	case err == nil:
		st.Mode, st.Valid, st.Modules = "licensed", true, p.Modules
		st.Message = fmt.Sprintf("licensed to %s until %s", p.Customer, st.ExpiresAt.Format(time.RFC3339))
	case errors.As(err, &ke) && ke.Reason == ReasonExpired:
		st.Mode, st.Message = "expired", "the licence key has expired: the portal is read-only until a new key is activated"
	default:
		st.Mode, st.Message = "invalid", "the stored licence key is refused: "+err.Error()+"; activate a valid key"
	}
	return st
}

func daysLeft(exp, now time.Time) (int, bool) {
	left := exp.Sub(now)
	if left <= 0 {
		return 0, false
	}
	return int((left + 24*time.Hour - 1) / (24 * time.Hour)), true
}

// Current returns the cached status.
func (s *Service) Current() LicenseStatus { return *s.current.Load() }

// Writable reports whether writes are allowed.
func (s *Service) Writable() bool { return s.current.Load().Valid }

// Key returns the activated licence key ("" in trial).
func (s *Service) Key() string {
	if k := s.key.Load(); k != nil {
		return *k
	}
	return ""
}

// Entitlements is what the modules capability needs of the licence: whether
// a paid module (key such as vendor.helpdesk) may be installed and used.
// *Service implements it; patterns follow Entitles.
type Entitlements interface {
	Entitled(moduleKey string) bool
}

var _ Entitlements = (*Service)(nil)

// Entitled reports whether a paid module may be used: every module during a
// valid trial, the key's module patterns while licensed, none otherwise.
func (s *Service) Entitled(moduleKey string) bool {
	st := s.current.Load()
	return st.Valid && Entitles(st.Modules, moduleKey)
}

// Activate checks a key (or a key file's content) and stores it: the file
// {data_dir}/license.key (atomically, 0600) and the shared store, then tells
// every instance. A refused key changes nothing and is a validation error
// whose details.reason names the failed check.
func (s *Service) Activate(ctx context.Context, content string) (LicenseActivationResult, error) {
	key := KeyText(content)
	in, err := s.install(ctx)
	if err != nil {
		return LicenseActivationResult{}, err
	}
	p, err := Parse(key, s.opt.PublicKey)
	if err == nil {
		err = p.Check(in, s.now())
	}
	var ke *KeyError
	if errors.As(err, &ke) {
		audit.Record(ctx, audit.Entry{Action: audit.LicenceSet, ResourceType: "licence", Outcome: "failure",
			Details: map[string]any{"reason": ke.Reason}})
		return LicenseActivationResult{}, fault.Validation("licenseKey", "licence activation failed: %s", ke.Message).With("reason", ke.Reason)
	}
	if err != nil {
		return LicenseActivationResult{}, err
	}
	if err := writeFileAtomic(s.StoragePath(), []byte("# Core Portal licence "+p.LicenseID+" ("+p.Customer+")\n"+key+"\n")); err != nil {
		return LicenseActivationResult{}, err
	}
	if err := s.settings.Set(ctx, settingKey, key); err != nil {
		return LicenseActivationResult{}, fmt.Errorf("licence: store key: %w", err)
	}
	st, err := s.Refresh(ctx)
	if err != nil {
		return LicenseActivationResult{}, err
	}
	if s.opt.Bus != nil {
		if err := s.opt.Bus.Publish(ctx, Topic, []byte(p.LicenseID)); err != nil {
			slog.WarnContext(ctx, "licence activated but other instances were not told; they reload it within a minute", "err", err)
		}
	}
	// The key itself is not recorded: what it grants is.
	audit.Record(ctx, audit.Entry{Action: audit.LicenceSet, ResourceType: "licence", ResourceID: p.LicenseID,
		After: map[string]any{"licenseId": p.LicenseID, "customer": p.Customer, "expiresAt": st.ExpiresAt, "modules": st.Modules}})
	slog.InfoContext(ctx, "licence activated", "licenseId", p.LicenseID, "customer", p.Customer, "expiresAt", st.ExpiresAt, "modules", strings.Join(st.Modules, ","))
	return LicenseActivationResult{License: st, StoragePath: s.StoragePath(),
		Message: "licence activated; it applies at once on every API instance (background workers pick it up within a minute)"}, nil
}

func writeFileAtomic(path string, data []byte) error {
	if err := privfs.MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("licence: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".license-*.tmp")
	if err != nil {
		return fmt.Errorf("licence: write key file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	err = f.Chmod(privfs.FileMode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("licence: write key file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("licence: write key file: %w", err)
	}
	return nil
}
