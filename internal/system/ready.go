package system

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Check is one dependency /ready asks: its name in the answer and a probe.
type Check struct {
	Name  string
	Probe func(ctx context.Context) error
}

const (
	// readyTimeout bounds each probe: a dependency that has not answered by
	// then is "failing", so /ready itself answers within about this long.
	readyTimeout = 800 * time.Millisecond
	// readyCache is how long a probe's outcome answers later probes: load
	// balancers polling every instance each second cost each dependency
	// at most one probe per period per instance.
	readyCache = 1500 * time.Millisecond
)

// probe runs one check at most once per readyCache, shared by concurrent callers.
type probe struct {
	Check
	mu      sync.Mutex
	at      time.Time
	err     error
	running chan struct{} // closed when the probe in flight ends
}

// result returns the cached outcome or runs the probe; it waits at most
// readyTimeout (a probe ignoring its ctx cannot hold the answer).
func (p *probe) result(ctx context.Context) error {
	p.mu.Lock()
	if !p.at.IsZero() && time.Since(p.at) < readyCache {
		err := p.err
		p.mu.Unlock()
		return err
	}
	if p.running == nil {
		done := make(chan struct{})
		p.running = done
		go func() {
			// detached from the caller: a client that gives up must not
			// leave "context canceled" in the cache for everyone else
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
			err := p.Probe(pctx)
			if err == nil && pctx.Err() != nil {
				err = pctx.Err()
			}
			cancel()
			p.mu.Lock()
			p.at, p.err, p.running = time.Now(), err, nil
			p.mu.Unlock()
			close(done)
		}()
	}
	done := p.running
	p.mu.Unlock()
	t := time.NewTimer(readyTimeout + 50*time.Millisecond)
	defer t.Stop()
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.err
	case <-t.C:
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready answers GET /ready (no authentication, CONTRACT.md): 200 with
// data {name: "ok"} plus the fields of info (nil = none) when every
// dependency answers, else 503 UNAVAILABLE naming the failing ones in
// details.failing. Probes run in parallel, each bounded by readyTimeout and
// cached for readyCache, so the answer comes within a second; their errors
// go to the process log only, never to the anonymous caller.
func Ready(info func() map[string]any, checks ...Check) http.HandlerFunc {
	probes := make([]*probe, len(checks))
	for i, c := range checks {
		probes[i] = &probe{Check: c}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		status := make(map[string]string, len(probes))
		errs := make([]error, len(probes))
		var wg sync.WaitGroup
		for i, p := range probes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = p.result(r.Context())
			}()
		}
		wg.Wait()
		var failing []string
		for i, c := range probes {
			if errs[i] != nil {
				slog.WarnContext(r.Context(), "readiness check failed", "check", c.Name, "err", errs[i])
				failing = append(failing, c.Name)
				status[c.Name] = "failing"
				continue
			}
			status[c.Name] = "ok"
		}
		if len(failing) > 0 {
			web.WriteError(w, r, fault.New(fault.CodeUnavailable, "not ready: %v does not answer", failing).With("failing", failing).With("checks", status))
			return
		}
		data := map[string]any{}
		if info != nil {
			for k, v := range info() {
				data[k] = v
			}
		}
		for k, v := range status {
			data[k] = v
		}
		web.WriteJSON(w, http.StatusOK, data)
	}
}
