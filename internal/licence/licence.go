// Package licence decides whether the portal may write. Without a licence
// key the portal runs in trial mode for 30 days from its first start.
package licence

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"coreportal/internal/settings"
)

// TrialDays is the length of the trial.
const TrialDays = 30

// Status is the LicenseStatusDto of SPEC.md (fields filled so far).
type Status struct {
	Mode          string    `json:"mode" enum:"trial,licensed,expired,invalid"`
	Valid         bool      `json:"valid"`
	ExpiresAt     time.Time `json:"expiresAt"`
	DaysRemaining int       `json:"daysRemaining"`
	InstallID     string    `json:"installId"`
	Modules       []string  `json:"modules"`
}

// Service computes and caches the licence status.
type Service struct {
	settings *settings.Store
	now      func() time.Time
	current  atomic.Pointer[Status]
}

// New loads the status once; call Refresh periodically.
func New(ctx context.Context, st *settings.Store) (*Service, error) {
	s := &Service{settings: st, now: time.Now}
	if _, err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Refresh recomputes the status from the store.
func (s *Service) Refresh(ctx context.Context) (Status, error) {
	first, err := s.settings.Init(ctx, "first_start_at", func() string { return s.now().UTC().Format(time.RFC3339) })
	if err != nil {
		return Status{}, fmt.Errorf("licence: %w", err)
	}
	start, err := time.Parse(time.RFC3339, first)
	if err != nil {
		return Status{}, fmt.Errorf("licence: bad first_start_at %q: %w", first, err)
	}
	id, _, err := s.settings.Get(ctx, "install_id")
	if err != nil {
		return Status{}, fmt.Errorf("licence: %w", err)
	}
	exp := start.Add(TrialDays * 24 * time.Hour)
	st := Status{Mode: "trial", ExpiresAt: exp, InstallID: id, Modules: []string{}}
	left := exp.Sub(s.now())
	st.Valid = left > 0
	if st.Valid {
		st.DaysRemaining = int((left + 24*time.Hour - 1) / (24 * time.Hour))
	} else {
		st.Mode = "expired"
	}
	s.current.Store(&st)
	return st, nil
}

// Current returns the cached status.
func (s *Service) Current() Status { return *s.current.Load() }

// Writable reports whether writes are allowed.
func (s *Service) Writable() bool { return s.current.Load().Valid }

// Watch refreshes the status every interval until ctx ends.
func (s *Service) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "licence refresh", "err", err)
			}
		}
	}
}
