package logs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/store"
)

type logStore struct{ db *store.DB }

const logCols = `id, at, level, process, instance, category, message, correlation_id, job_id, attrs`

func (s *logStore) insert(ctx context.Context, batch []applog.Entry) error {
	if len(batch) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO app_log (at, level, level_num, process, instance, category, message, correlation_id, job_id, attrs, size) VALUES `)
	args := make([]any, 0, len(batch)*11)
	for i, e := range batch {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		attrs, err := json.Marshal(e.Attrs)
		if err != nil {
			attrs = []byte(`{}`)
		}
		lvl, _ := applog.ParseLevel(e.Level)
		size := len(e.Message) + len(attrs) + len(e.Category) + len(e.CorrelationID) + len(e.JobID) + len(e.Instance) + 64
		args = append(args, e.At, e.Level, int(lvl), e.Process, e.Instance, e.Category, e.Message, e.CorrelationID, e.JobID, string(attrs), size)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("insert application log records: %w", err)
	}
	return nil
}

func (s *logStore) where(f Filter) (string, []any) {
	var where []string
	var args []any
	if len(f.Levels) > 0 {
		nums := make([]any, 0, len(f.Levels))
		for _, l := range f.Levels {
			n, _ := applog.ParseLevel(l)
			nums = append(nums, int(n))
		}
		where = append(where, "level_num IN ("+store.Placeholders(len(nums))+")")
		args = append(args, nums...)
	}
	if f.MinLevel != "" {
		n, _ := applog.ParseLevel(f.MinLevel)
		where = append(where, "level_num >= ?")
		args = append(args, int(n))
	}
	for _, c := range []struct {
		col, v string
	}{{"process", f.Process}, {"category", f.Category}, {"correlation_id", f.CorrelationID}, {"job_id", f.JobID}} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	if f.Q != "" {
		attrs := "attrs"
		if s.db.Dialect == store.Postgres {
			attrs = "attrs::text"
		}
		where = append(where, `(lower(message) LIKE ? ESCAPE '\' OR lower(`+attrs+`) LIKE ? ESCAPE '\')`)
		q := store.Like(strings.ToLower(f.Q))
		args = append(args, q, q)
	}
	if !f.From.IsZero() {
		where = append(where, "at >= ?")
		args = append(args, f.From.UTC())
	}
	if !f.To.IsZero() {
		where = append(where, "at <= ?")
		args = append(args, f.To.UTC())
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (s *logStore) list(ctx context.Context, f Filter, offset, limit int) ([]applog.Entry, int, error) {
	cond, args := s.where(f)
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM app_log`+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count application log records: %w", err)
	}
	out := []applog.Entry{}
	err := s.query(ctx, cond, args, offset, limit, func(e applog.Entry) error { out = append(out, e); return nil })
	return out, total, err
}

func (s *logStore) each(ctx context.Context, f Filter, limit int, fn func(applog.Entry) error) error {
	cond, args := s.where(f)
	return s.query(ctx, cond, args, 0, limit, fn)
}

func (s *logStore) query(ctx context.Context, cond string, args []any, offset, limit int, fn func(applog.Entry) error) error {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+logCols+` FROM app_log`+cond+` ORDER BY id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return fmt.Errorf("list application log records: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e applog.Entry
		var attrs string
		if err := rows.Scan(&e.ID, &e.At, &e.Level, &e.Process, &e.Instance, &e.Category, &e.Message, &e.CorrelationID, &e.JobID, &attrs); err != nil {
			return fmt.Errorf("scan application log record: %w", err)
		}
		e.At = e.At.UTC()
		if err := json.Unmarshal([]byte(attrs), &e.Attrs); err != nil {
			e.Attrs = map[string]any{}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s *logStore) exec(ctx context.Context, what, q string, args ...any) (int64, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return res.RowsAffected()
}

func (s *logStore) deleteBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	return s.exec(ctx, "purge old application log records", `DELETE FROM app_log WHERE at < ?`, cutoff)
}

// keepRows deletes the oldest records beyond the newest max.
func (s *logStore) keepRows(ctx context.Context, max int) (int64, error) {
	var edge int64
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT id FROM app_log ORDER BY id DESC LIMIT 1 OFFSET ?`, max).Scan(&edge)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find application log row ceiling: %w", err)
	}
	return s.exec(ctx, "purge application log above maxRows", `DELETE FROM app_log WHERE id <= ?`, edge)
}

// keepBytes deletes the oldest records whose running size (newest first)
// passes max.
func (s *logStore) keepBytes(ctx context.Context, max int64) (int64, error) {
	var edge int64
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT id FROM (SELECT id, SUM(size) OVER (ORDER BY id DESC) AS run FROM app_log) x
		WHERE run > ? ORDER BY id DESC LIMIT 1`, max).Scan(&edge)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("find application log size ceiling: %w", err)
	}
	return s.exec(ctx, "purge application log above maxSizeMb", `DELETE FROM app_log WHERE id <= ?`, edge)
}

func (s *logStore) count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM app_log`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count application log records: %w", err)
	}
	return n, nil
}

func (s *logStore) clear(ctx context.Context) (int64, error) {
	return s.exec(ctx, "clear application log", `DELETE FROM app_log`)
}
