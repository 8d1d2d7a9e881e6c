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

// lock returns the row of d locked until the transaction of ctx ends, so a
// read-modify-write of one service never loses a concurrent update (PATCH
// /services vs PUT /admin/settings/smtp, or two PUTs). PostgreSQL: SELECT ...
// FOR UPDATE (READ COMMITTED would otherwise let both read the same row).
// SQLite: the single writer and BEGIN IMMEDIATE already serialise the
// transaction. Call inside InTx.
func (s *svcStore) lock(ctx context.Context, d def) (row, error) {
	if err := s.ensure(ctx, d); err != nil {
		return row{}, err
	}
	var r row
	var cfg string
	var tick sql.NullInt64
	err := s.db.W(ctx).QueryRowContext(ctx, `SELECT is_enabled, cron_enabled, cron_expression, config, cron_last_tick FROM services WHERE key = ?`+s.db.Dialect.ForUpdate(), d.key).
		Scan(&r.enabled, &r.cronEnabled, &r.expr, &cfg, &tick)
	if err != nil {
		return row{}, fmt.Errorf("lock service %s: %w", d.key, err)
	}
	r.config = json.RawMessage(cfg)
	if tick.Valid {
		r.lastTick = &tick.Int64
	}
	return r, nil
}

// putSwitches writes the switches and the schedule only (never config).
// When restartAt is set (the schedule changed), cron_last_tick moves forward
// to it so the new schedule counts from now; it never moves back, so a PATCH
// can never make the scheduler fire a tick again.
func (s *svcStore) putSwitches(ctx context.Context, key string, r row, restartAt *int64) error {
	var err error
	if restartAt != nil {
		_, err = s.db.W(ctx).ExecContext(ctx, `UPDATE services SET is_enabled = ?, cron_enabled = ?, cron_expression = ?,
			cron_last_tick = CASE WHEN cron_last_tick IS NULL OR cron_last_tick < ? THEN ? ELSE cron_last_tick END, updated_at = ? WHERE key = ?`,
			r.enabled, r.cronEnabled, r.expr, *restartAt, *restartAt, time.Now().UTC(), key)
	} else {
		_, err = s.db.W(ctx).ExecContext(ctx, `UPDATE services SET is_enabled = ?, cron_enabled = ?, cron_expression = ?, updated_at = ? WHERE key = ?`,
			r.enabled, r.cronEnabled, r.expr, time.Now().UTC(), key)
	}
	if err != nil {
		return fmt.Errorf("save service %s: %w", key, err)
	}
	return nil
}

// putConfig writes the config only.
func (s *svcStore) putConfig(ctx context.Context, key string, cfg json.RawMessage) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE services SET config = ?, updated_at = ? WHERE key = ?`, string(cfg), time.Now().UTC(), key)
	if err != nil {
		return fmt.Errorf("save config of service %s: %w", key, err)
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
