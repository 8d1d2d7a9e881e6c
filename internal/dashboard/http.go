package dashboard

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /admin/dashboard.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the route.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/admin/dashboard", "getDashboard", "Administrator's dashboard", web.Admin, "admin-dashboard")
	op.Description += ` Meant to be refreshed every 5 s.

load: the last ~60 s of every API instance and worker together (each process publishes its counters every 5 s;
instances silent for 20 s are left out): http.rps, http.rpm (requests in the window), http.error_rate (share of
5xx), http.avg_latency_ms, http.max_latency_ms (also as max_latency_msx); worker.pending,
worker.running, worker.completed_1m (jobs); process.memory_mb (resident memory of all instances), sse_clients,
log_dropped; postgres.active_connections: on PostgreSQL the sessions of this database in state active, on the
embedded SQLite database the connections in use of its pool (the key is the same on both databases). level: "high" when the error rate is 5 % or more (with
at least 20 requests in the window), the average latency 1000 ms or more, or 1000 jobs or more are pending; "warn" at
1 %, 300 ms or 100 pending jobs; "ok" otherwise.

maintenance: searchIndex, recycleBin (records, schedule), backup (on/off, runner online, successful copies, last copy
date and size, schedule) and adSync (enabled, available = directory configured, schedule, last job); a capability
that is not set up answers configured=false and status "not configured".
jobs: counts per status, finished in the last minute, failed in the last day, pending per type. services: counts
and each service's switches. recentErrors: the newest 10 error records of the application log. audit: the newest
10 audit records. infrastructure: database kind, version and active connections, bus (memory or redis), blob
store (local or s3), instances seen. instances: each live process with its own figures.`
	web.Register(api, op, h.get)
}

func (h *Handler) get(ctx context.Context, _ *struct{}) (*web.Out[*Dashboard], error) {
	return web.Reply(h.svc.Build(ctx))
}
