package release

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

const downloadAttempts = 5

// download fetches the package into staged, resuming with Range after a cut
// connection, never past the offered size; it returns the SHA-256.
func (r *Runner) download(ctx context.Context, o *Offer, staged string) ([]byte, error) {
	f, err := os.OpenFile(staged, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	var have int64
	var lastErr error
	for attempt := 1; attempt <= downloadAttempts && have < o.Size; attempt++ {
		n, err := r.fetchFrom(ctx, o, have, io.MultiWriter(f, h))
		have += n
		if err == nil && have == o.Size {
			break
		}
		if err == nil {
			err = fmt.Errorf("the connection ended after %d of %d bytes", have, o.Size)
		}
		lastErr = err
		if isPermanent(err) || ctx.Err() != nil {
			break
		}
		slog.Warn("package download interrupted; resuming", "attempt", attempt, "have", have, "size", o.Size, "err", err)
		time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
	}
	if have != o.Size {
		return nil, fmt.Errorf("download failed after %d of %d bytes: %w", have, o.Size, lastErr)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	return h.Sum(nil), nil
}

// permanentError marks a failure that retrying cannot cure.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanent(format string, args ...any) error { return permanentError{fmt.Errorf(format, args...)} }

func isPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// fetchFrom appends bytes from offset to w and returns how many it wrote.
func (r *Runner) fetchFrom(ctx context.Context, o *Offer, offset int64, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.DownloadURL, nil)
	if err != nil {
		return 0, permanent("bad downloadUrl: %v", err)
	}
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	client := &http.Client{} // no overall timeout: large packages on slow links
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	switch {
	case offset > 0 && resp.StatusCode == http.StatusPartialContent:
	case offset == 0 && resp.StatusCode == http.StatusOK:
	case offset > 0 && resp.StatusCode == http.StatusOK:
		return 0, permanent("the download site does not resume (HTTP 200 to a Range request)")
	default:
		return 0, permanent("the download answered HTTP %d", resp.StatusCode)
	}
	// one byte more than expected reveals an oversized body
	n, err := io.Copy(w, io.LimitReader(resp.Body, o.Size-offset+1))
	if offset+n > o.Size {
		return n, permanent("the package is larger than the offered %d bytes", o.Size)
	}
	return n, err
}

// swap replaces the binary by staged atomically, keeping the old one as
// <binary>.prev, and returns that path.
func (r *Runner) swap(staged string) (string, error) {
	if err := os.Chmod(staged, 0o755); err != nil {
		return "", fmt.Errorf("apply: %w", err)
	}
	prev := r.cfg.Binary + ".prev"
	_ = os.Remove(prev)
	if err := os.Link(r.cfg.Binary, prev); err != nil {
		if err := copyFile(r.cfg.Binary, prev); err != nil {
			return "", fmt.Errorf("apply: keep the previous binary: %w", err)
		}
	}
	if err := os.Rename(staged, r.cfg.Binary); err != nil {
		return "", fmt.Errorf("apply: replace the binary: %w", err)
	}
	return prev, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// migrate runs `<new binary> migrate` with the runner's environment.
func (r *Runner) migrate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, r.cfg.Binary, "migrate").CombinedOutput()
	if err != nil {
		return fmt.Errorf("migrations of the new release failed (%v): %s", err, lastLines(string(out), 3))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 1500 {
		out = out[len(out)-1500:]
	}
	return out
}

// rollback puts the previous binary back and, when the service was
// restarted on the new one, restarts it on the old one.
func (r *Runner) rollback(prev string, restarted bool, version string) error {
	if err := os.Rename(prev, r.cfg.Binary); err != nil {
		return fmt.Errorf("ROLLBACK FAILED, restore %s by hand: %w", prev, err)
	}
	if !restarted {
		return errors.New("rolled back: the previous release keeps running")
	}
	if err := r.restart(context.Background(), version); err != nil {
		return fmt.Errorf("rolled back the binary, but the previous release did not come back: %w", err)
	}
	return errors.New("rolled back: the previous release " + version + " is running again")
}

// restart restarts the service on the installed binary and waits until it
// answers /health and reports version.
func (r *Runner) restart(ctx context.Context, version string) error {
	if r.child != nil {
		r.child.stop()
		if err := r.child.start(); err != nil {
			return err
		}
	} else {
		cctx, cancel := context.WithTimeout(ctx, r.cfg.HealthTimeout)
		out, err := exec.CommandContext(cctx, "sh", "-c", r.cfg.RestartCmd).CombinedOutput()
		cancel()
		if err != nil {
			return fmt.Errorf("CORE_UPDATE_RESTART_CMD failed (%v): %s", err, lastLines(string(out), 3))
		}
	}
	return r.waitHealthy(ctx, version)
}

// runningVersion is the assembly version the running service reports, or
// fallback when it does not answer.
func (r *Runner) runningVersion(ctx context.Context, fallback string) string {
	if v, err := r.reportedVersion(ctx); err == nil && v != "" {
		return v
	}
	return fallback
}

// reportedVersion asks the running service for its assembly version.
func (r *Runner) reportedVersion(ctx context.Context) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	err := r.call(ctx, http.MethodGet, "/internal/upgrade-queue/version", nil, &v)
	return v.Version, err
}

func (r *Runner) waitHealthy(ctx context.Context, version string) error {
	deadline := time.Now().Add(r.cfg.HealthTimeout)
	last := "no answer yet"
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if r.child != nil && r.child.exited() {
			return fmt.Errorf("the service exited at start: %v", r.child.exitErr())
		}
		if v, err := r.reportedVersion(ctx); err != nil {
			last = err.Error()
		} else if v == version {
			return nil
		} else {
			last = fmt.Sprintf("it reports version %q", v)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not healthy with version %s within %s: %s", version, r.cfg.HealthTimeout, last)
}

// writeReleaseFile rewrites an existing RELEASE file with the new version.
func (r *Runner) writeReleaseFile(version string) error {
	if r.cfg.ReleaseFile == "" {
		return nil
	}
	if _, err := os.Stat(r.cfg.ReleaseFile); err != nil {
		return nil // no file: the version lives in the database
	}
	tmp := filepath.Join(filepath.Dir(r.cfg.ReleaseFile), ".RELEASE.tmp")
	if err := os.WriteFile(tmp, []byte(version+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, r.cfg.ReleaseFile)
}

// child is the service process the runner supervises.
type child struct {
	bin  string
	args []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func (c *child) start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmd := exec.Command(c.bin, c.args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", c.bin, err)
	}
	done := make(chan struct{})
	c.cmd, c.done, c.err = cmd, done, nil
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(done)
	}()
	slog.Info("service started", "binary", c.bin, "pid", cmd.Process.Pid)
	return nil
}

func (c *child) exited() bool {
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

func (c *child) exitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stop asks the service to finish (SIGTERM) and kills it after 40 s.
func (c *child) stop() {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(40 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
