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

// readyTimeout bounds each probe: a hanging dependency answers "failing".
const readyTimeout = 3 * time.Second

// Ready answers GET /ready (no authentication, CONTRACT.md): 200 with
// data {name: "ok"} plus the fields of info (nil = none) when every
// dependency answers, else 503 UNAVAILABLE naming the failing ones in
// details.failing. Probes run in parallel; their errors go to the process
// log only, never to the anonymous caller.
func Ready(info func() map[string]any, checks ...Check) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status := make(map[string]string, len(checks))
		errs := make([]error, len(checks))
		var wg sync.WaitGroup
		for i, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
				defer cancel()
				errs[i] = c.Probe(ctx)
			}()
		}
		wg.Wait()
		var failing []string
		for i, c := range checks {
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
