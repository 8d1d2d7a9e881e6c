package services

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type svcStore struct{ db *store.DB }

// get returns the stored row, or the defaults when the service was never saved.
func (s *svcStore) get(ctx context.Context, d def) (row, error) {
	var r row
	var cfg string
	var tick sql.NullInt64
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT is_enabled, cron_enabled, cron_expression, config, cron_last_tick FROM services WHERE key = ?`, d.key).
		Scan(&r.enabled, &r.cronEnabled, &r.expr, &cfg, &tick)
	if store.IsNotFound(err) {
		return row{enabled: d.enabled, cronEnabled: d.cron, expr: d.expr, config: json.RawMessage("{}")}, nil
	}
	if err != nil {
		return row{}, fmt.Errorf("read service %s: %w", d.key, err)
	}
	r.config = json.RawMessage(cfg)
	if tick.Valid {
		r.lastTick = &tick.Int64
	}
	return r, nil
}

// ensure inserts the default row of d unless one exists.
func (s *svcStore) ensure(ctx context.Context, d def) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO services (key, is_enabled, cron_enabled, cron_expression, config, updated_at)
		VALUES (?, ?, ?, ?, '{}', ?) ON CONFLICT (key) DO NOTHING`, d.key, d.enabled, d.cron, d.expr, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("create service %s: %w", d.key, err)
	}
	return nil
}

func (s *svcStore) put(ctx context.Context, key string, r row) error {
	var tick any
	if r.lastTick != nil {
		tick = *r.lastTick
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO services (key, is_enabled, cron_enabled, cron_expression, config, cron_last_tick, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET is_enabled = excluded.is_enabled, cron_enabled = excluded.cron_enabled,
			cron_expression = excluded.cron_expression, config = excluded.config, cron_last_tick = excluded.cron_last_tick,
			updated_at = excluded.updated_at`,
		key, r.enabled, r.cronEnabled, r.expr, string(r.config), tick, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("save service %s: %w", key, err)
	}
	return nil
}

// advanceTick moves the last fired tick from old to next; only one caller
// wins for a given old value, which is what makes a tick fire once.
func (s *svcStore) advanceTick(ctx context.Context, key string, old *int64, next int64) (bool, error) {
	var res sql.Result
	var err error
	if old == nil {
		res, err = s.db.W(ctx).ExecContext(ctx, `UPDATE services SET cron_last_tick = ? WHERE key = ? AND cron_last_tick IS NULL`, next, key)
	} else {
		res, err = s.db.W(ctx).ExecContext(ctx, `UPDATE services SET cron_last_tick = ? WHERE key = ? AND cron_last_tick = ?`, next, key, *old)
	}
	if err != nil {
		return false, fmt.Errorf("advance schedule of %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
