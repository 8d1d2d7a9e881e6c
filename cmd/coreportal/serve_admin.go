package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/backup"
	"coreportal/internal/dashboard"
	"coreportal/internal/fault"
	"coreportal/internal/logs"
	"coreportal/internal/metrics"
	"coreportal/internal/services"
	"coreportal/internal/web"
)

// adminParts holds the services of the administration capability.
type adminParts struct {
	audit     *audit.Log
	logs      *logs.Log
	meter     *dashboard.Meter
	dashboard *dashboard.Service
	metrics   *metrics.Metrics
	backup    *backup.Service
}

// buildAdmin wires the audit log (installed behind audit.Record for every
// capability) and the application log; it runs first in build().
func (a *app) buildAdmin() {
	a.admin.audit = audit.New(a.db, actorOf)
	audit.Use(a.admin.audit)
	a.admin.logs = logs.New(a.db, logTee, a.settings)
	a.admin.logs.OnChange = func(ctx context.Context, action string, details map[string]any) {
		audit.Record(ctx, audit.Entry{Action: "applog." + action, ResourceType: "applog", Details: details})
	}
	if logTee != nil {
		a.loops = append(a.loops, a.admin.logs.Maintain, func(ctx context.Context) { logTee.Run(ctx, a.admin.logs.Write) })
		a.workers = append(a.workers, a.admin.logs.PurgeLoop)
	}
	a.admin.meter = dashboard.NewMeter()
	a.admin.metrics = metrics.New()
}

// buildDashboard wires the dashboard and the Prometheus metrics once every
// capability they report on is built; it runs last in build().
func (a *app) buildDashboard() {
	bus, blob := "memory", "local"
	if a.cfg.BusURL != "" {
		bus = "redis"
	}
	if strings.HasPrefix(a.cfg.BlobURL, "s3:") {
		blob = "s3"
	}
	src := dashboard.Sources{
		Jobs: a.jobs, Services: a.services, Audit: a.admin.audit,
		RecentErrors:    a.admin.logs.RecentErrors,
		RecycleBinCount: a.access.recycleBin.Count,
		SearchIndex:     a.searchIndexBlock,
		Bus:             bus, Blob: blob,
		SSEClients: a.live.Clients,
		LogDropped: func() int64 { return logTee.Stats().Dropped },
	}
	a.admin.backup = backup.New(a.db, a.blobs, a.settings, a.cfg.DataDir, backup.Hooks{
		RebuildTables: a.lists.RebuildItemTables,
		Restored: func(ctx context.Context) error {
			a.acl.Invalidate(ctx)
			if err := a.lists.SchemasChanged(ctx); err != nil {
				return err
			}
			// the search index is not archived: rebuild it once the restore commits
			_, err := a.jobs.Enqueue(ctx, "searchCrawler.run", map[string]any{"serviceKey": services.KeySearchCrawler, "trigger": "restore"})
			return err
		},
		Administrators: a.administrators,
	})
	a.admin.backup.SetKey(a.backupKey)
	a.workers = append(a.workers, a.admin.backup.Run)
	// the core-backup schedule queues a backup for the runner
	a.services.RegisterJob(services.KeyCoreBackup, "backup.run", func(ctx context.Context) (any, error) {
		r, err := a.admin.backup.Queue(ctx, "backup", "")
		if err != nil {
			return nil, err
		}
		return map[string]any{"backupId": r.ID}, nil
	})
	src.Backup = func(ctx context.Context) (map[string]any, error) {
		st, err := a.admin.backup.Status(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"configured": true, "runnerOnline": st.RunnerOnline, "copies": st.Copies,
			"lastBackupAt": st.LastBackupAt, "lastBackupSize": st.LastBackupSize, "lastValidatedOk": st.LastValidatedOk, "maintenance": st.Maintenance}, nil
	}
	a.admin.dashboard = dashboard.New(a.db, a.admin.meter, src, instanceName(), processRole, buildVersion())
	a.loops = append(a.loops, a.admin.dashboard.Heartbeat)

	m := a.admin.metrics
	a.jobs.Observe = m.ObserveJob
	m.Gauge("core_jobs_pending", "Jobs waiting to run (all instances).", func() float64 {
		c, err := a.jobs.Counts(context.Background())
		if err != nil {
			return 0
		}
		return float64(c.Pending)
	})
	m.Gauge("core_sse_clients", "Open live (SSE) streams on this instance.", func() float64 { return float64(a.live.Clients()) })
	m.Gauge("core_db_open_connections", "Open connections of the database pool (writer pool on SQLite).", func() float64 { return float64(a.db.Stats().OpenConnections) })
	m.Gauge("core_db_in_use_connections", "Connections in use.", func() float64 { return float64(a.db.Stats().InUse) })
	m.Gauge("core_db_idle_connections", "Idle connections.", func() float64 { return float64(a.db.Stats().Idle) })
	m.Counter("core_db_wait_count_total", "Connections waited for.", func() float64 { return float64(a.db.Stats().WaitCount) })
	m.Counter("core_db_wait_seconds_total", "Time spent waiting for connections.", func() float64 { return a.db.Stats().WaitDuration.Seconds() })
	m.Counter("core_applog_dropped_total", "Application log records dropped because the queue was full.", func() float64 { return float64(logTee.Stats().Dropped) })
	m.Counter("core_applog_written_total", "Application log records written.", func() float64 { return float64(logTee.Stats().Written) })
	a.registerOpsMetrics(m)
	if a.cfg.MetricsAddr != "" {
		a.loops = append(a.loops, func(ctx context.Context) {
			if err := m.Serve(ctx, a.cfg.MetricsAddr); err != nil {
				slog.Error("metrics listener stopped", "err", err)
				os.Exit(1) // a configured but unusable listener is a start-up error
			}
		})
	}
}

// observeRoutes reports every finished request to the dashboard meter and the
// Prometheus histogram, by route template.
func (a *app) observeRoutes() func(next http.Handler) http.Handler {
	return web.ObserveRoutes(a.admin.meter.Observe, a.admin.metrics.ObserveHTTP)
}

// maintenanceGate refuses writes with 503 while a restore runs (sign-in stays open).
func (a *app) maintenanceGate() func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
			default:
				if strings.HasPrefix(r.URL.Path, web.Prefix) && r.URL.Path != web.Prefix+"/auth/login" && a.admin.backup.Maintenance(r.Context()) {
					web.WriteError(w, r, fault.New(fault.CodeUnavailable, "a restore is running: the portal is read-only until it ends"))
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// actorOf is the caller of a request or job as the audit log names it.
func actorOf(ctx context.Context) audit.Actor {
	act := audit.Actor{Address: auth.ClientFrom(ctx).Address}
	if p := auth.FromContext(ctx); p != nil {
		act.ID, act.Login = p.UserID, p.Login
	}
	return act
}

// adminHandlers are the HTTP handlers of the administration capability.
func (a *app) adminHandlers() []interface{ Register(huma.API) } {
	return []interface{ Register(huma.API) }{
		audit.NewHandler(a.admin.audit),
		logs.NewHandler(a.admin.logs),
		dashboard.NewHandler(a.admin.dashboard),
		backup.NewHandler(a.admin.backup),
	}
}

// administrators are the logins of the active administrators.
func (a *app) administrators(ctx context.Context) ([]string, error) {
	admin := true
	rows, _, err := a.users.List(ctx, "", &admin, 0, 1000)
	if err != nil {
		return nil, fmt.Errorf("list administrators: %w", err)
	}
	out := []string{}
	for _, u := range rows {
		if u.IsActive {
			out = append(out, u.Login)
		}
	}
	return out, nil
}
