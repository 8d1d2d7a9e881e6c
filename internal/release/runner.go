package release

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RunnerConfig configures `coreportal update-runner`.
type RunnerConfig struct {
	APIURL        string            // base URL of the portal (CORE_UPDATE_API_URL)
	Token         string            // CORE_UPDATE_RUNNER_TOKEN
	Binary        string            // the service binary replaced by updates
	PublicKey     ed25519.PublicKey // vendor update key (CORE_UPDATE_PUBLIC_KEY)
	Poll          time.Duration     // queue poll interval (heartbeat)
	HealthTimeout time.Duration     // wait for the restarted service
	MaxDownload   int64             // package size limit in bytes
	RestartCmd    string            // shell command restarting the service (when not supervising)
	ReleaseFile   string            // rewritten with the new version when it exists
	Supervise     bool              // run `<Binary> serve` as a child and restart it
}

// Runner takes update jobs from the portal's upgrade queue and carries them out.
type Runner struct {
	cfg   RunnerConfig
	http  *http.Client
	child *child
}

// NewRunner builds a runner.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if cfg.Token == "" {
		return nil, errors.New("CORE_UPDATE_RUNNER_TOKEN is required")
	}
	if !cfg.Supervise && strings.TrimSpace(cfg.RestartCmd) == "" {
		return nil, errors.New("set CORE_UPDATE_RESTART_CMD (e.g. systemctl restart coreportal) or run with --serve to let the runner start and restart the service")
	}
	r := &Runner{cfg: cfg, http: &http.Client{Timeout: 30 * time.Second}}
	if cfg.Supervise {
		r.child = &child{bin: cfg.Binary, args: []string{"serve"}}
	}
	return r, nil
}

// Run polls the queue until ctx ends; with Supervise it keeps the service
// running as its child and stops it on the way out.
func (r *Runner) Run(ctx context.Context) error {
	if r.child != nil {
		if err := r.child.start(); err != nil {
			return err
		}
		defer r.child.stop()
	}
	slog.Info("update runner started", "api", r.cfg.APIURL, "binary", r.cfg.Binary, "supervise", r.cfg.Supervise)
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			slog.Info("update runner stopping")
			return nil
		case <-time.After(r.cfg.Poll):
		}
		if r.child != nil && r.child.exited() {
			slog.Error("the service exited; starting it again", "err", r.child.exitErr())
			if err := r.child.start(); err != nil {
				slog.Error("start the service", "err", err)
			}
			continue
		}
		var w *UpdateWork
		if err := r.call(ctx, http.MethodPost, "/internal/upgrade-queue/claim", nil, &w); err != nil {
			if err.Error() != lastErr && ctx.Err() == nil {
				slog.Warn("update queue not reachable", "err", err)
			}
			lastErr = err.Error()
			continue
		}
		lastErr = ""
		if w != nil {
			r.execute(ctx, w)
		}
	}
}

// call sends one request to the portal's internal interface.
func (r *Runner) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(r.cfg.APIURL, "/")+"/api/v1"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set(TokenHeader, r.cfg.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		if resp.StatusCode/100 == 4 {
			return permanent("%s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
		}
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if out == nil {
		return nil
	}
	env := struct {
		Data any `json:"data"`
	}{Data: out}
	return json.Unmarshal(raw, &env)
}

// report tells the portal the phase reached; while the service restarts it
// retries until the health timeout.
func (r *Runner) report(ctx context.Context, id, phase, msg string) {
	deadline := time.Now().Add(r.cfg.HealthTimeout)
	for {
		err := r.call(ctx, http.MethodPatch, "/internal/upgrade-queue/"+id, UpdateProgress{Phase: phase, Message: msg}, nil)
		if err == nil || isPermanent(err) || time.Now().After(deadline) || ctx.Err() != nil {
			if err != nil {
				slog.Error("report update progress", "job", id, "phase", phase, "err", err)
			}
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// execute carries out one job; every failure is reported with its reason and
// leaves the previous release running.
func (r *Runner) execute(ctx context.Context, w *UpdateWork) {
	id := w.UpdateJob.ID
	slog.Info("update job started", "job", id, "from", w.UpdateJob.FromVersion, "to", w.UpdateJob.ToVersion)
	fail := func(err error) {
		slog.Error("update job failed", "job", id, "err", err)
		r.report(ctx, id, PhaseFailed, err.Error())
	}
	offer, err := r.entitle(ctx, w)
	if err != nil {
		fail(err)
		return
	}
	r.report(ctx, id, PhaseDownload, fmt.Sprintf("downloading %d bytes", offer.Size))
	staged := filepath.Join(filepath.Dir(r.cfg.Binary), "."+filepath.Base(r.cfg.Binary)+"-"+offer.Version+".download")
	defer os.Remove(staged)
	sum, err := r.download(ctx, offer, staged)
	if err != nil {
		fail(err)
		return
	}
	if err := offer.Verify(r.cfg.PublicKey, sum); err != nil {
		fail(fmt.Errorf("package refused, nothing was changed: %w", err))
		return
	}
	// what the running service reports before the swap is what the previous
	// binary reports again after a rollback (the installed release may be
	// named otherwise, by a RELEASE file)
	before := r.runningVersion(ctx, w.UpdateJob.FromVersion)
	r.report(ctx, id, PhaseApply, "installing "+offer.Version+" and running its migrations")
	prev, err := r.swap(staged)
	if err != nil {
		fail(err)
		return
	}
	if err := r.migrate(ctx); err != nil {
		fail(errors.Join(err, r.rollback(prev, false, before)))
		return
	}
	r.report(ctx, id, PhaseRestart, "restarting the service on "+offer.Version)
	if err := r.restart(ctx, offer.Version); err != nil {
		fail(errors.Join(fmt.Errorf("the new release did not become healthy: %w", err), r.rollback(prev, true, before)))
		return
	}
	if err := r.writeReleaseFile(offer.Version); err != nil {
		slog.Warn("update installed but the RELEASE file was not rewritten", "err", err)
	}
	r.report(ctx, id, PhaseDone, "release "+offer.Version+" installed and running; the previous binary is kept as "+prev)
	slog.Info("update job succeeded", "job", id, "version", offer.Version)
}

// entitle asks the vendor for a one-time download of the job's release.
func (r *Runner) entitle(ctx context.Context, w *UpdateWork) (*Offer, error) {
	if w.EntitleURL == "" {
		return nil, errors.New("entitle: no vendor update site is configured")
	}
	body, _ := json.Marshal(EntitleRequest{LicenseKey: w.LicenseKey, InstallBinding: w.InstallBinding, Channel: w.Channel,
		Platform: w.Platform, CurrentVersion: w.CurrentVersion})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.EntitleURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("entitle: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("entitle: the vendor does not answer: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxVendorAnswer))
	var env struct {
		Data  Offer `json:"data"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode/100 != 2 {
		msg := env.Error.Message
		if msg == "" {
			msg = string(bytes.TrimSpace(raw[:min(len(raw), 300)]))
		}
		return nil, fmt.Errorf("entitle refused by the vendor (HTTP %d): %s", resp.StatusCode, msg)
	}
	o := env.Data
	switch {
	case o.DownloadURL == "":
		return nil, errors.New("entitle: the vendor's answer has no downloadUrl")
	case o.Version != w.UpdateJob.ToVersion:
		return nil, fmt.Errorf("entitle: the vendor offers %q, the job installs %q", o.Version, w.UpdateJob.ToVersion)
	case o.Platform != w.Platform:
		return nil, fmt.Errorf("entitle: the vendor offers a package for %q, this installation runs on %q", o.Platform, w.Platform)
	case o.Size <= 0 || o.Size > r.cfg.MaxDownload:
		return nil, fmt.Errorf("entitle: package size %d is outside 1..%d bytes (CORE_UPDATE_MAX_MB)", o.Size, r.cfg.MaxDownload)
	}
	return &o, nil
}
