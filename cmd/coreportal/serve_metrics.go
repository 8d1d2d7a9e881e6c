package main

import (
	"context"
	"log/slog"
	"math"
	"time"

	"coreportal/internal/metrics"
)

// cliBackupSetting holds the time of the last `coreportal backup --to`
// archive, which the backup catalogue does not list.
const cliBackupSetting = "backup_cli_last_at"

const timeLayout = time.RFC3339Nano

// scrapeTimeout bounds the database reads of one gauge.
const scrapeTimeout = 5 * time.Second

// registerOpsMetrics adds what monitoring alerts on besides traffic: the
// licence, the maintenance state, the backup age and the search index size.
// A gauge whose source cannot be read reports NaN.
func (a *app) registerOpsMetrics(m *metrics.Metrics) {
	m.Gauge("coreportal_licence_valid", "1 while the licence (or the trial) allows writes, 0 while the portal is read-only.", func() float64 {
		if a.licence.Current().Valid {
			return 1
		}
		return 0
	})
	m.Gauge("coreportal_licence_days_remaining", "Whole days (rounded up) until the trial or the licence key expires; 0 once expired.", func() float64 {
		return float64(a.licence.Current().DaysRemaining)
	})
	m.Gauge("coreportal_maintenance", "1 while a restore runs (writes answer 503), else 0.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		if a.admin.backup.Maintenance(ctx) {
			return 1
		}
		return 0
	})
	m.Gauge("coreportal_backup_age_seconds", "Seconds since the newest successful backup (catalogue copies whose file exists, or coreportal backup --to); +Inf when there is none.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		last, err := a.lastBackupAt(ctx)
		if err != nil {
			slog.Warn("metrics: backup age unknown", "err", err)
			return math.NaN()
		}
		if last.IsZero() {
			return math.Inf(1)
		}
		return math.Max(0, time.Since(last).Seconds())
	})
	m.Gauge("coreportal_search_index_entries", "Entries in the search index.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		defer cancel()
		st, err := a.search.Stats(ctx)
		if err != nil {
			slog.Warn("metrics: search index size unknown", "err", err)
			return math.NaN()
		}
		return float64(st.Entries)
	})
}

// lastBackupAt is the time of the newest successful backup; zero when none.
func (a *app) lastBackupAt(ctx context.Context) (time.Time, error) {
	var last time.Time
	copies, err := a.admin.backup.Restorable(ctx)
	if err != nil {
		return last, err
	}
	if len(copies) > 0 && copies[0].FinishedAt != nil {
		last = *copies[0].FinishedAt
	}
	v, ok, err := a.settings.Get(ctx, cliBackupSetting)
	if err != nil {
		return last, err
	}
	if t, perr := time.Parse(timeLayout, v); ok && perr == nil && t.After(last) {
		last = t
	}
	return last, nil
}
