package licence

import (
	"context"
	"log/slog"
	"time"

	"coreportal/internal/store"
)

// Watch refreshes the status every interval until ctx ends, and logs it: once
// at start, then daily while fewer than WarnDays days are left or while the
// portal is read-only.
func (s *Service) Watch(ctx context.Context, every time.Duration) {
	s.logStatus(ctx, s.Current(), true)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			st, err := s.Refresh(ctx)
			if err != nil {
				store.LogLoopError(ctx, "licence refresh", err)
				continue
			}
			s.logStatus(ctx, st, false)
		}
	}
}

// Listen reloads the licence whenever another instance activated one.
func (s *Service) Listen(ctx context.Context) {
	if s.opt.Bus == nil {
		return
	}
	msgs, cancel := s.opt.Bus.Subscribe(Topic)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-msgs:
			if _, err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				slog.ErrorContext(ctx, "licence reload after activation elsewhere", "err", err)
			}
		}
	}
}

// logStatus writes the daily status line (always when first is true).
func (s *Service) logStatus(ctx context.Context, st LicenseStatus, first bool) {
	day := s.now().UTC().Format(time.DateOnly)
	s.logMu.Lock()
	due := first || s.lastLog != day
	if due {
		s.lastLog = day
	}
	s.logMu.Unlock()
	if !due {
		return
	}
	attrs := []any{"mode", st.Mode, "valid", st.Valid, "daysRemaining", st.DaysRemaining, "expiresAt", st.ExpiresAt}
	switch {
	case !st.Valid:
		slog.ErrorContext(ctx, "licence not valid: the portal is read-only; activate a key with POST /api/v1/admin/license/activate or `coreportal license activate --key-file F`", append(attrs, "reason", st.Message)...)
	case st.DaysRemaining <= WarnDays:
		slog.WarnContext(ctx, "licence ends soon: activate a key before it does, or the portal becomes read-only", attrs...)
	case first:
		slog.InfoContext(ctx, "licence", attrs...)
	}
}
