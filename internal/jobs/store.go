package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/store"
)

// jobStore holds the SQL of the jobs table.
type jobStore struct{ db *store.DB }

const jobCols = `id, type, status, payload, result, error, attempts, max_attempts, actor_id, run_at, created_at, started_at, completed_at`

func scanJob(sc interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var payload string
	var result, actor sql.NullString
	var started, completed sql.NullTime
	if err := sc.Scan(&j.ID, &j.Type, &j.Status, &payload, &result, &j.Error, &j.Attempts, &j.MaxAttempts, &actor,
		&j.RunAt, &j.CreatedAt, &started, &completed); err != nil {
		return nil, err
	}
	j.Payload = json.RawMessage(payload)
	if result.Valid {
		j.Result = json.RawMessage(result.String)
	}
	j.ActorID = actor.String
	if started.Valid {
		t := started.Time.UTC()
		j.StartedAt = &t
	}
	if completed.Valid {
		t := completed.Time.UTC()
		j.CompletedAt = &t
	}
	j.RunAt, j.CreatedAt = j.RunAt.UTC(), j.CreatedAt.UTC()
	return &j, nil
}

func (s *jobStore) insert(ctx context.Context, j *Job, o enqueueOpts) error {
	var actor, key any
	if o.actorID != "" {
		actor = o.actorID
	}
	if o.orderKey != "" {
		key = o.orderKey
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO jobs (id, type, status, payload, error, attempts, max_attempts, actor_id, order_key, order_seq, run_at, created_at)
		VALUES (?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.Type, j.Status, string(j.Payload), j.MaxAttempts, actor, key, o.orderSeq, j.RunAt, j.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert job %s: %w", j.Type, err)
	}
	return nil
}

func (s *jobStore) get(ctx context.Context, id string) (*Job, error) {
	return scanJob(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = ?`, id))
}

// claim marks up to n due jobs of the given types running for worker and
// returns them. On PostgreSQL, SKIP LOCKED lets several workers claim at once
// without taking the same row; on SQLite the single writer serialises claims.
// A job of an ordering key waits while an earlier one of its key is unfinished.
func (s *jobStore) claim(ctx context.Context, worker string, types []string, n int, now time.Time, lease time.Duration) ([]*Job, error) {
	if len(types) == 0 {
		return nil, nil
	}
	// a cheap read first: idle workers do not take the write lock every poll
	var one int
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE status = 'pending' AND run_at <= ? LIMIT 1`, now).Scan(&one)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("peek jobs: %w", err)
	}
	args := []any{worker, now, now.Add(lease), now}
	for _, t := range types {
		args = append(args, t)
	}
	args = append(args, n)
	q := `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ?, started_at = ?, locked_until = ?
		WHERE id IN (SELECT j.id FROM jobs j
			WHERE j.status = 'pending' AND j.run_at <= ? AND j.type IN (` + store.Placeholders(len(types)) + `)
			AND (j.order_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs p WHERE p.order_key = j.order_key
				AND p.order_seq < j.order_seq AND p.status IN ('pending', 'running')))
			ORDER BY j.run_at, j.created_at LIMIT ?` + s.db.Dialect.ForUpdateSkipLocked() + `)
		RETURNING ` + jobCols
	rows, err := s.db.W(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("scan claimed job: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// finish records the outcome, only if worker still holds the job (the reaper
// may have handed it to someone else after the lease ran out).
func (s *jobStore) succeed(ctx context.Context, id, worker string, result []byte, now time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET status = 'succeeded', result = ?, error = '', completed_at = ?, locked_by = NULL, locked_until = NULL
		WHERE id = ? AND status = 'running' AND locked_by = ?`, string(cleanJSON(result)), now, id, worker)
	return affected(res, err)
}

// progress records the result of a running job held by worker (call it
// outside transactions so that readers see it at once).
func (s *jobStore) progress(ctx context.Context, id, worker string, result []byte) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET result = ? WHERE id = ? AND status = 'running' AND locked_by = ?`,
		string(cleanJSON(result)), id, worker)
	return affected(res, err)
}

// renew extends the lease of a running job held by worker.
func (s *jobStore) renew(ctx context.Context, id, worker string, until time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET locked_until = ? WHERE id = ? AND status = 'running' AND locked_by = ?`, until, id, worker)
	return affected(res, err)
}

func (s *jobStore) fail(ctx context.Context, id, worker, msg string, now time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET status = 'failed', error = ?, completed_at = ?, locked_by = NULL, locked_until = NULL
		WHERE id = ? AND status = 'running' AND locked_by = ?`, cleanText(msg), now, id, worker)
	return affected(res, err)
}

func (s *jobStore) retry(ctx context.Context, id, worker, msg string, at time.Time) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET status = 'pending', error = ?, run_at = ?, locked_by = NULL, locked_until = NULL
		WHERE id = ? AND status = 'running' AND locked_by = ?`, cleanText(msg), at, id, worker)
	return affected(res, err)
}

// reap returns jobs whose lease ran out to pending (or failed when out of attempts).
func (s *jobStore) reap(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET status = 'failed', error = 'lease expired: the worker stopped while running the job', completed_at = ?, locked_by = NULL, locked_until = NULL
			WHERE status = 'running' AND locked_until < ? AND attempts >= max_attempts`, now, now)
		if err != nil {
			return fmt.Errorf("reap exhausted jobs: %w", err)
		}
		n1, _ := res.RowsAffected()
		res, err = s.db.W(ctx).ExecContext(ctx, `UPDATE jobs SET status = 'pending', error = 'lease expired: the worker stopped while running the job', run_at = ?, locked_by = NULL, locked_until = NULL
			WHERE status = 'running' AND locked_until < ?`, now, now)
		if err != nil {
			return fmt.Errorf("reap stuck jobs: %w", err)
		}
		n2, _ := res.RowsAffected()
		total = n1 + n2
		return nil
	})
	return total, err
}

// Filter selects jobs for the listing.
type Filter struct {
	Type, Status string
}

func (s *jobStore) list(ctx context.Context, f Filter, offset, limit int) ([]*Job, int, error) {
	var where []string
	var args []any
	if f.Type != "" {
		where = append(where, "type = ?")
		args = append(args, f.Type)
	}
	if f.Status != "" {
		where = append(where, "status = ?")
		args = append(args, f.Status)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM jobs`+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count jobs: %w", err)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+jobCols+` FROM jobs`+cond+` ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	out := []*Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan job: %w", err)
		}
		out = append(out, j)
	}
	return out, total, rows.Err()
}

// deleteCompleted removes finished jobs completed before cutoff.
func (s *jobStore) deleteCompleted(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND completed_at < ?`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("delete old jobs: %w", err)
	}
	return res.RowsAffected()
}

func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("update job: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
