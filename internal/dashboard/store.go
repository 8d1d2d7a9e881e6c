package dashboard

import (
	"context"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type dashStore struct{ db *store.DB }

// Instance is one process as its last heartbeat describes it.
type Instance struct {
	Instance   string    `json:"instance"`
	Process    string    `json:"process"`
	Version    string    `json:"version"`
	StartedAt  time.Time `json:"startedAt"`
	SeenAt     time.Time `json:"seenAt"`
	Requests   int64     `json:"requests1m"`
	Errors     int64     `json:"errors1m"`
	LatSumMs   float64   `json:"-"`
	LatMaxMs   float64   `json:"maxLatencyMs"`
	MemoryMB   float64   `json:"memoryMb"`
	LogDropped int64     `json:"logDropped"`
	SSEClients int64     `json:"sseClients"`
}

func (s *dashStore) publish(ctx context.Context, in Instance) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO instance_stats (instance, process, version, started_at, seen_at, requests, errors,
		latency_sum_ms, latency_max_ms, memory_mb, log_dropped, sse_clients) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (instance) DO UPDATE SET process = excluded.process, version = excluded.version, seen_at = excluded.seen_at,
		requests = excluded.requests, errors = excluded.errors, latency_sum_ms = excluded.latency_sum_ms,
		latency_max_ms = excluded.latency_max_ms, memory_mb = excluded.memory_mb, log_dropped = excluded.log_dropped,
		sse_clients = excluded.sse_clients`,
		in.Instance, in.Process, in.Version, in.StartedAt, in.SeenAt, in.Requests, in.Errors, in.LatSumMs, in.LatMaxMs, in.MemoryMB, in.LogDropped, in.SSEClients)
	if err != nil {
		return fmt.Errorf("publish instance stats: %w", err)
	}
	return nil
}

func (s *dashStore) forget(ctx context.Context, before time.Time) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM instance_stats WHERE seen_at < ?`, before); err != nil {
		return fmt.Errorf("forget old instances: %w", err)
	}
	return nil
}

func (s *dashStore) instances(ctx context.Context, since time.Time) ([]Instance, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT instance, process, version, started_at, seen_at, requests, errors, latency_sum_ms,
		latency_max_ms, memory_mb, log_dropped, sse_clients FROM instance_stats WHERE seen_at >= ? ORDER BY instance`, since)
	if err != nil {
		return nil, fmt.Errorf("list instances: %w", err)
	}
	defer rows.Close()
	out := []Instance{}
	for rows.Next() {
		var in Instance
		if err := rows.Scan(&in.Instance, &in.Process, &in.Version, &in.StartedAt, &in.SeenAt, &in.Requests, &in.Errors, &in.LatSumMs,
			&in.LatMaxMs, &in.MemoryMB, &in.LogDropped, &in.SSEClients); err != nil {
			return nil, fmt.Errorf("scan instance: %w", err)
		}
		in.StartedAt, in.SeenAt = in.StartedAt.UTC(), in.SeenAt.UTC()
		out = append(out, in)
	}
	return out, rows.Err()
}

// database returns the database kind, its version and its active connections.
func (s *dashStore) database(ctx context.Context) (string, int, error) {
	var version string
	var active int
	if s.db.Dialect == store.Postgres {
		if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT current_setting('server_version'),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active')`).Scan(&version, &active); err != nil {
			return "", 0, fmt.Errorf("read database version: %w", err)
		}
		return version, active, nil
	}
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&version); err != nil {
		return "", 0, fmt.Errorf("read database version: %w", err)
	}
	return version, s.db.InUse(), nil
}
