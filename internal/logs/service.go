// Package logs is the administration side of the application log: its
// settings, the batched database writer behind applog.Tee, listing, export,
// purge and clear (/admin/logs).
package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/store"
)

// KV is where the settings are kept (the settings table).
type KV interface {
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
}

const settingsKey = "applog_settings"

// Log is the application log service: the database side of the tee.
type Log struct {
	st  *logStore
	tee *applog.Tee
	kv  KV
	now func() time.Time
	// OnChange is told about settings saves, purges and clears (audit log).
	OnChange func(ctx context.Context, action string, details map[string]any)
}

// New builds the service. tee may be nil (commands that do not log to the database).
func New(db *store.DB, tee *applog.Tee, kv KV) *Log {
	return &Log{st: &logStore{db: db}, tee: tee, kv: kv, now: time.Now}
}

// Filter selects records; zero fields match everything.
type Filter struct {
	Levels        []string // exact levels
	MinLevel      string
	Process       string
	Category      string
	Q             string
	CorrelationID string
	JobID         string
	From, To      time.Time
}

// Settings reads the stored settings (defaults when none were saved).
func (l *Log) Settings(ctx context.Context) (applog.Settings, error) {
	s := applog.DefaultSettings()
	raw, ok, err := l.kv.Get(ctx, settingsKey)
	if err != nil || !ok {
		return s, err
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return applog.DefaultSettings(), fmt.Errorf("decode application log settings: %w", err)
	}
	if s.IncludeCategories == nil {
		s.IncludeCategories = []string{}
	}
	return s, nil
}

// SaveSettings validates, stores and applies s on this instance (others pick
// it up within RefreshEvery).
func (l *Log) SaveSettings(ctx context.Context, s applog.Settings) (applog.Settings, error) {
	if err := s.Check(); err != nil {
		return applog.Settings{}, err
	}
	before, err := l.Settings(ctx)
	if err != nil {
		return applog.Settings{}, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return applog.Settings{}, fmt.Errorf("encode application log settings: %w", err)
	}
	if err := l.kv.Set(ctx, settingsKey, string(raw)); err != nil {
		return applog.Settings{}, err
	}
	if l.tee != nil {
		l.tee.Use(s)
	}
	l.changed(ctx, "settings", map[string]any{"before": before, "after": s})
	return s, nil
}

func (l *Log) changed(ctx context.Context, action string, details map[string]any) {
	if l.OnChange != nil {
		l.OnChange(ctx, action, details)
	}
}

// Stats are this instance's tee counters.
func (l *Log) Stats() applog.Stats { return l.tee.Stats() }

// Write stores a batch (the tee's writer).
func (l *Log) Write(ctx context.Context, batch []applog.Entry) error { return l.st.insert(ctx, batch) }

// List returns one page, newest first, and the total.
func (l *Log) List(ctx context.Context, f Filter, offset, limit int) ([]applog.Entry, int, error) {
	return l.st.list(ctx, f, offset, limit)
}

// Each streams up to limit records, newest first.
func (l *Log) Each(ctx context.Context, f Filter, limit int, fn func(applog.Entry) error) error {
	return l.st.each(ctx, f, limit, fn)
}

// PurgeResult says what a purge removed.
type PurgeResult struct {
	ByAge  int64 `json:"byAge" doc:"records older than retentionDays"`
	ByRows int64 `json:"byRows" doc:"oldest records above maxRows"`
	BySize int64 `json:"bySize" doc:"oldest records above maxSizeMb"`
	Left   int   `json:"left" doc:"records kept"`
}

// Purge applies retentionDays, then maxRows, then maxSizeMb.
func (l *Log) Purge(ctx context.Context) (PurgeResult, error) {
	s, err := l.Settings(ctx)
	if err != nil {
		return PurgeResult{}, err
	}
	var r PurgeResult
	if r.ByAge, err = l.st.deleteBefore(ctx, l.now().UTC().Add(-time.Duration(s.RetentionDays)*24*time.Hour)); err != nil {
		return r, err
	}
	if r.ByRows, err = l.st.keepRows(ctx, s.MaxRows); err != nil {
		return r, err
	}
	if r.BySize, err = l.st.keepBytes(ctx, int64(s.MaxSizeMb)<<20); err != nil {
		return r, err
	}
	if r.Left, err = l.st.count(ctx); err != nil {
		return r, err
	}
	return r, nil
}

// PurgeNow is the administrator's purge (audited).
func (l *Log) PurgeNow(ctx context.Context) (PurgeResult, error) {
	r, err := l.Purge(ctx)
	if err == nil {
		l.changed(ctx, "purge", map[string]any{"byAge": r.ByAge, "byRows": r.ByRows, "bySize": r.BySize})
	}
	return r, err
}

// Clear deletes every record (audited).
func (l *Log) Clear(ctx context.Context) (int64, error) {
	n, err := l.st.clear(ctx)
	if err == nil {
		l.changed(ctx, "clear", map[string]any{"deleted": n})
	}
	return n, err
}

// RecentErrors returns the newest error records (dashboard).
func (l *Log) RecentErrors(ctx context.Context, n int) ([]applog.Entry, error) {
	rows, _, err := l.st.list(ctx, Filter{Levels: []string{"error"}}, 0, n)
	return rows, err
}

// RefreshEvery is how often an instance re-reads the settings.
const RefreshEvery = 10 * time.Second

// Maintain applies stored settings to the tee now and every RefreshEvery
// (settings saved on another instance), until ctx ends.
func (l *Log) Maintain(ctx context.Context) {
	t := time.NewTicker(RefreshEvery)
	defer t.Stop()
	for {
		if s, err := l.Settings(ctx); err == nil && l.tee != nil {
			l.tee.Use(s)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PurgeEvery is how often the worker applies the retention and ceilings.
const PurgeEvery = 10 * time.Minute

// PurgeLoop purges on a schedule (workers); several workers purging at once
// is harmless (the deletes are idempotent).
func (l *Log) PurgeLoop(ctx context.Context) {
	t := time.NewTicker(PurgeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if r, err := l.Purge(applog.Quiet(ctx)); err != nil {
				slog.WarnContext(ctx, "application log purge", "category", "applog", "err", err)
			} else if r.ByAge+r.ByRows+r.BySize > 0 {
				slog.InfoContext(ctx, "application log purged", "category", "applog", "byAge", r.ByAge, "byRows", r.ByRows, "bySize", r.BySize)
			}
		}
	}
}
