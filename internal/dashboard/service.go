// Package dashboard builds the administrator's dashboard: the load of every
// API instance and worker over the last minute (each process publishes its
// counters to the instance_stats table every few seconds), maintenance status,
// job and service statistics, recent errors, an audit excerpt and the
// infrastructure in use.
package dashboard

import (
	"context"
	"log/slog"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/audit"
	"coreportal/internal/jobs"
	"coreportal/internal/services"
	"coreportal/internal/store"
)

// PublishEvery is how often a process publishes its counters; instances not
// seen for StaleAfter are left out of the load block.
const (
	PublishEvery = 5 * time.Second
	StaleAfter   = 20 * time.Second
)

// Sources are the services the dashboard reads (wired in cmd/coreportal).
type Sources struct {
	Jobs            *jobs.Queue
	Services        *services.Service
	Audit           *audit.Log
	RecentErrors    func(ctx context.Context, n int) ([]applog.Entry, error)
	RecycleBinCount func(ctx context.Context) (int, error)
	// Backup and SearchIndex return their maintenance block; nil = the
	// capability is not built into this service.
	Backup      func(ctx context.Context) (map[string]any, error)
	SearchIndex func(ctx context.Context) (map[string]any, error)
	Bus, Blob   string // kinds: memory / redis, local / s3
	SSEClients  func() int
	LogDropped  func() int64
}

// Service is the dashboard.
type Service struct {
	st       *dashStore
	meter    *Meter
	src      Sources
	instance string
	process  string
	version  string
	started  time.Time
	now      func() time.Time
}

// New builds the dashboard for this process.
func New(db *store.DB, meter *Meter, src Sources, instance, process, version string) *Service {
	return &Service{st: &dashStore{db: db}, meter: meter, src: src, instance: instance, process: process, version: version, started: time.Now().UTC(), now: time.Now}
}

// Publish writes this process's counters once.
func (s *Service) Publish(ctx context.Context) error {
	t := s.meter.Snapshot()
	in := Instance{Instance: s.instance, Process: s.process, Version: s.version, StartedAt: s.started, SeenAt: s.now().UTC(),
		Requests: t.Requests, Errors: t.Errors, LatSumMs: t.LatSumMs, LatMaxMs: t.LatMaxMs, MemoryMB: MemoryMB()}
	if s.src.LogDropped != nil {
		in.LogDropped = s.src.LogDropped()
	}
	if s.src.SSEClients != nil {
		in.SSEClients = int64(s.src.SSEClients())
	}
	return s.st.publish(ctx, in)
}

// Heartbeat publishes every PublishEvery until ctx ends (every process), and
// forgets instances gone for an hour.
func (s *Service) Heartbeat(ctx context.Context) {
	t := time.NewTicker(PublishEvery)
	defer t.Stop()
	for {
		qctx := applog.Quiet(ctx)
		if err := s.Publish(qctx); err != nil && ctx.Err() == nil {
			slog.WarnContext(qctx, "dashboard heartbeat", "category", "dashboard", "err", err)
		}
		_ = s.st.forget(qctx, s.now().UTC().Add(-time.Hour))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Level thresholds of the load block (documented in the API reference).
const (
	minRequestsForRate = 20
	warnErrorRate      = 0.01
	highErrorRate      = 0.05
	warnAvgLatencyMs   = 300
	highAvgLatencyMs   = 1000
	warnPending        = 100
	highPending        = 1000
)

func level(reqs int64, errRate, avgMs float64, pending int) string {
	rated := reqs >= minRequestsForRate
	switch {
	case rated && errRate >= highErrorRate, avgMs >= highAvgLatencyMs, pending >= highPending:
		return "high"
	case rated && errRate >= warnErrorRate, avgMs >= warnAvgLatencyMs, pending >= warnPending:
		return "warn"
	}
	return "ok"
}
