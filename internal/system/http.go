// Package system serves the health check and the assembly version.
package system

import (
	"context"
	"net/http"
	"runtime"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Pinger is the store's liveness check.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Handler serves /health and /system/version.
type Handler struct {
	db      Pinger
	version string
	started time.Time
	dialect string
	info    func() map[string]any
}

// NewHandler builds the handler.
func NewHandler(db Pinger, version, dialect string) *Handler {
	return &Handler{db: db, version: version, started: time.Now(), dialect: dialect}
}

// SetInfo adds fields to the bodies of /health and /ready (the service's
// version and licence block), read on every call.
func (h *Handler) SetInfo(fn func() map[string]any) { h.info = fn }

// Info is the extra body of /health and /ready; nil when none was set.
func (h *Handler) Info() map[string]any {
	if h.info == nil {
		return nil
	}
	return h.info()
}

// Health answers 200 once the store answers, 503 otherwise (no
// authentication). The 200 body is data {status: "ok"} plus Info; the
// licence does not change the status: a read-only portal is healthy.
func (h *Handler) Health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := h.db.Ping(ctx); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"success":false,"error":{"code":"UNAVAILABLE","message":"the store does not answer"}}`))
		return
	}
	data := map[string]any{}
	for k, v := range h.Info() {
		data[k] = v
	}
	data["status"] = "ok"
	web.WriteJSON(w, http.StatusOK, data)
}

// Version is the assembly version.
type Version struct {
	Version   string    `json:"version"`
	GoVersion string    `json:"goVersion"`
	Database  string    `json:"database"`
	StartedAt time.Time `json:"startedAt"`
}

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/system/version", "getVersion", "Assembly version of the running service", web.User, "system")
	op.Description = "Any signed-in user. version is the one `coreportal version` prints and info.version of this document."
	web.Register(api, op,
		func(context.Context, *struct{}) (*web.Out[Version], error) {
			return web.OK(Version{Version: h.version, GoVersion: runtime.Version(), Database: h.dialect, StartedAt: h.started.UTC()}), nil
		})
}
