package release

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// TokenHeader carries the runner secret (SPEC.md, Authentication 6).
const TokenHeader = "X-Core-Update-Token"

// InternalPrefix is the path prefix of the runner's interface.
const InternalPrefix = web.Prefix + "/internal"

// RunnerGate answers 401 to every request under /api/v1/internal that does
// not carry the runner token, and to all of them while no token is set.
func RunnerGate(token string) func(http.Handler) http.Handler {
	want := []byte(token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == InternalPrefix || strings.HasPrefix(r.URL.Path, InternalPrefix+"/") {
				got := []byte(r.Header.Get(TokenHeader))
				if len(want) == 0 || subtle.ConstantTimeCompare(got, want) != 1 {
					web.WriteError(w, r, fault.Unauthorized("the update runner token (header %s) is missing or wrong", TokenHeader))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func (s *Service) beat(ctx context.Context) error {
	return s.settings.Set(ctx, keyHeartbeat, s.now().UTC().Format(time.RFC3339Nano))
}

// Queued returns the update job in the queue (queued, or running while the
// runner carries it out); nil when there is none. It changes nothing, not
// even the runner's heartbeat.
func (s *Service) Queued(ctx context.Context) (*UpdateJob, error) {
	return s.jobs.active(ctx)
}

// Claim records the runner's heartbeat and hands it the queued job, if any.
func (s *Service) Claim(ctx context.Context) (*UpdateWork, error) {
	if err := s.beat(ctx); err != nil {
		return nil, err
	}
	j, err := s.jobs.claim(ctx, s.now().UTC())
	if err != nil || j == nil {
		return nil, err
	}
	st := s.lic.Current()
	slog.InfoContext(ctx, "update job taken by the runner", "job", j.ID, "from", j.FromVersion, "to", j.ToVersion)
	return &UpdateWork{UpdateJob: *j, EntitleURL: s.EntitleURL(), LicenseKey: s.lic.Key(), InstallBinding: st.InstallBinding,
		Channel: j.Channel, Platform: j.Platform, CurrentVersion: j.FromVersion}, nil
}

// Report moves a running job to the phase the runner reached. Phases only go
// forward; done ends it as succeeded (and records the new installed release),
// failed as failed.
func (s *Service) Report(ctx context.Context, id string, p UpdateProgress) (*UpdateJob, error) {
	j, err := s.JobByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.beat(ctx); err != nil {
		return nil, err
	}
	rank, known := phaseOrder[p.Phase]
	if !known && p.Phase != PhaseFailed || p.Phase == PhaseQueued {
		return nil, fault.Validation("phase", "phase must be one of entitle, download, apply, restart, done, failed")
	}
	if j.Status != StatusRunning {
		return nil, fault.Conflict("update job %s is %s, not running", j.ID, j.Status)
	}
	if p.Phase != PhaseFailed && rank < phaseOrder[j.Phase] {
		return nil, fault.Conflict("update job %s is in phase %s; it cannot go back to %s", j.ID, j.Phase, p.Phase)
	}
	msg := strings.TrimSpace(p.Message)
	if p.Phase == PhaseDone {
		if _, src, err := s.Installed(ctx); err != nil {
			return nil, err
		} else if src == "database" {
			if err := s.settings.Set(ctx, keyVersion, j.ToVersion); err != nil {
				return nil, err
			}
		}
		if msg == "" {
			msg = "release " + j.ToVersion + " installed"
		}
	}
	ok, err := s.jobs.progress(ctx, j.ID, p.Phase, msg, s.now().UTC())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fault.Conflict("update job %s is no longer running", j.ID)
	}
	level := slog.LevelInfo
	if p.Phase == PhaseFailed {
		level = slog.LevelError
	}
	slog.Log(ctx, level, "update job progress", "job", j.ID, "phase", p.Phase, "message", msg)
	return s.jobs.get(ctx, j.ID)
}
