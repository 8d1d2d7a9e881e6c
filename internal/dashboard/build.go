package dashboard

import (
	"context"
	"math"

	"coreportal/internal/jobs"
	"coreportal/internal/services"
)

// Dashboard is the answer of GET /admin/dashboard.
type Dashboard struct {
	Load           map[string]any `json:"load"`
	Maintenance    map[string]any `json:"maintenance"`
	Jobs           jobs.Counts    `json:"jobs"`
	Services       map[string]any `json:"services"`
	RecentErrors   any            `json:"recentErrors"`
	Audit          any            `json:"audit"`
	Infrastructure map[string]any `json:"infrastructure"`
	Instances      []Instance     `json:"instances"`
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}

// Build assembles the dashboard.
func (s *Service) Build(ctx context.Context) (*Dashboard, error) {
	if err := s.Publish(ctx); err != nil { // this instance's figures are current
		return nil, err
	}
	insts, err := s.st.instances(ctx, s.now().UTC().Add(-StaleAfter))
	if err != nil {
		return nil, err
	}
	counts, err := s.src.Jobs.Counts(ctx)
	if err != nil {
		return nil, err
	}
	svcs, err := s.src.Services.List(ctx)
	if err != nil {
		return nil, err
	}
	version, active, err := s.st.database(ctx)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{Jobs: counts, Instances: insts}
	d.Load = s.load(insts, counts, active)
	if d.Maintenance, err = s.maintenance(ctx, svcs); err != nil {
		return nil, err
	}
	d.Services = serviceStats(svcs)
	if d.RecentErrors, err = s.src.RecentErrors(ctx, 10); err != nil {
		return nil, err
	}
	if d.Audit, err = s.src.Audit.Recent(ctx, 10); err != nil {
		return nil, err
	}
	kind := s.st.db.Dialect.String()
	d.Infrastructure = map[string]any{
		"database":      map[string]any{"kind": kind, "version": version, "activeConnections": active},
		"bus":           s.src.Bus,
		"blobStore":     s.src.Blob,
		"instancesSeen": len(insts),
		"thisInstance":  s.instance,
		"version":       s.version,
	}
	return d, nil
}

func (s *Service) load(insts []Instance, counts jobs.Counts, dbActive int) map[string]any {
	var reqs, errs, sse, dropped int64
	var latSum, latMax, mem float64
	for _, in := range insts {
		reqs += in.Requests
		errs += in.Errors
		latSum += in.LatSumMs
		latMax = max(latMax, in.LatMaxMs)
		mem += in.MemoryMB
		sse += in.SSEClients
		dropped += in.LogDropped
	}
	errRate, avg := 0.0, 0.0
	if reqs > 0 {
		errRate = float64(errs) / float64(reqs)
		avg = latSum / float64(reqs)
	}
	secs := Window.Seconds()
	load := map[string]any{
		"level":         level(reqs, errRate, avg, counts.Pending),
		"windowSeconds": int(secs),
		"instances":     len(insts),
		"http": map[string]any{
			"rps": round(float64(reqs)/secs, 2), "rpm": reqs, "error_rate": round(errRate, 4),
			"avg_latency_ms": round(avg, 2), "max_latency_ms": round(latMax, 2), "max_latency_msx": round(latMax, 2),
		},
		"worker":  map[string]any{"pending": counts.Pending, "running": counts.Running, "completed_1m": counts.CompletedLast},
		"process": map[string]any{"memory_mb": round(mem, 1), "sse_clients": sse, "log_dropped": dropped},
	}
	// SPEC.md names the block postgres on every database, so that the
	// answer has one shape; on the embedded database it counts the
	// connections in use of its pool.
	load["postgres"] = map[string]any{"active_connections": dbActive}
	return load
}

func serviceOf(svcs []services.ServiceRecord, key string) *services.ServiceRecord {
	for i := range svcs {
		if svcs[i].Key == key {
			return &svcs[i]
		}
	}
	return nil
}

func schedule(r *services.ServiceRecord) map[string]any {
	if r == nil {
		return nil
	}
	return map[string]any{"isEnabled": r.IsEnabled, "cronEnabled": r.CronEnabled, "cronExpression": r.CronExpression, "available": r.Available}
}

func (s *Service) maintenance(ctx context.Context, svcs []services.ServiceRecord) (map[string]any, error) {
	m := map[string]any{}
	notConfigured := func(key string) map[string]any {
		return map[string]any{"configured": false, "status": "not configured", "schedule": schedule(serviceOf(svcs, key))}
	}
	m["searchIndex"] = notConfigured(services.KeySearchCrawler)
	if s.src.SearchIndex != nil {
		b, err := s.src.SearchIndex(ctx)
		if err != nil {
			return nil, err
		}
		b["schedule"] = schedule(serviceOf(svcs, services.KeySearchCrawler))
		m["searchIndex"] = b
	}
	bin := map[string]any{"configured": true, "schedule": schedule(serviceOf(svcs, services.KeyRecycleBin))}
	if s.src.RecycleBinCount != nil {
		n, err := s.src.RecycleBinCount(ctx)
		if err != nil {
			return nil, err
		}
		bin["records"] = n
	}
	m["recycleBin"] = bin
	m["backup"] = notConfigured(services.KeyCoreBackup)
	if s.src.Backup != nil {
		b, err := s.src.Backup(ctx)
		if err != nil {
			return nil, err
		}
		b["schedule"] = schedule(serviceOf(svcs, services.KeyCoreBackup))
		m["backup"] = b
	}
	ad := serviceOf(svcs, services.KeyADSync)
	adBlock := map[string]any{"schedule": schedule(ad), "lastJob": nil}
	if ad != nil {
		adBlock["enabled"], adBlock["available"] = ad.IsEnabled, ad.Available
		if !ad.Available {
			adBlock["status"] = "not configured"
		}
	}
	last, _, err := s.src.Jobs.List(ctx, jobs.Filter{Type: "adSync.run"}, 0, 1)
	if err != nil {
		return nil, err
	}
	if len(last) > 0 {
		adBlock["lastJob"] = map[string]any{"id": last[0].ID, "status": last[0].Status, "createdAt": last[0].CreatedAt, "completedAt": last[0].CompletedAt}
	}
	m["adSync"] = adBlock
	return m, nil
}

func serviceStats(svcs []services.ServiceRecord) map[string]any {
	enabled, scheduled, available := 0, 0, 0
	list := make([]map[string]any, 0, len(svcs))
	for _, r := range svcs {
		if r.IsEnabled {
			enabled++
		}
		if r.CronEnabled {
			scheduled++
		}
		if r.Available {
			available++
		}
		list = append(list, map[string]any{"key": r.Key, "isEnabled": r.IsEnabled, "cronEnabled": r.CronEnabled, "cronExpression": r.CronExpression, "available": r.Available})
	}
	return map[string]any{"total": len(svcs), "enabled": enabled, "scheduled": scheduled, "available": available, "items": list}
}
