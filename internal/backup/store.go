package backup

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// BackupRecord is one journal entry.
type BackupRecord struct {
	ID         string         `json:"id"`
	Kind       string         `json:"kind" enum:"validate,backup,restore"`
	Status     string         `json:"status" enum:"queued,running,succeeded,failed"`
	FileName   string         `json:"fileName,omitempty"`
	Size       int64          `json:"size"`
	SourceID   string         `json:"sourceId,omitempty" doc:"restore: the backup restored"`
	Error      string         `json:"error,omitempty"`
	Details    map[string]any `json:"details"`
	CreatedBy  string         `json:"createdBy,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	StartedAt  *time.Time     `json:"startedAt"`
	FinishedAt *time.Time     `json:"finishedAt"`
	DurationMs *int64         `json:"durationMs"`
}

type journal struct{ db *store.DB }

const recCols = `id, kind, status, file_name, size, source_id, error, details, created_by, created_at, started_at, finished_at`

func scanRecord(sc interface{ Scan(...any) error }) (*BackupRecord, error) {
	var r BackupRecord
	var details string
	var started, finished sql.NullTime
	if err := sc.Scan(&r.ID, &r.Kind, &r.Status, &r.FileName, &r.Size, &r.SourceID, &r.Error, &details, &r.CreatedBy, &r.CreatedAt, &started, &finished); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(details), &r.Details)
	if r.Details == nil {
		r.Details = map[string]any{}
	}
	r.CreatedAt = r.CreatedAt.UTC()
	if started.Valid {
		t := started.Time.UTC()
		r.StartedAt = &t
	}
	if finished.Valid {
		t := finished.Time.UTC()
		r.FinishedAt = &t
		if r.StartedAt != nil {
			d := t.Sub(*r.StartedAt).Milliseconds()
			r.DurationMs = &d
		}
	}
	return &r, nil
}

func (j *journal) insert(ctx context.Context, r *BackupRecord) error {
	details, _ := json.Marshal(r.Details)
	_, err := j.db.W(ctx).ExecContext(ctx, `INSERT INTO backups (id, kind, status, source_id, created_by, created_at, details) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Kind, r.Status, r.SourceID, r.CreatedBy, r.CreatedAt, string(details))
	if err != nil {
		return fmt.Errorf("queue %s: %w", r.Kind, err)
	}
	return nil
}

func (j *journal) get(ctx context.Context, id string) (*BackupRecord, error) {
	return scanRecord(j.db.Q(ctx).QueryRowContext(ctx, `SELECT `+recCols+` FROM backups WHERE id = ?`, id))
}

func (j *journal) list(ctx context.Context, where string, args []any, offset, limit int) ([]*BackupRecord, int, error) {
	var total int
	if err := j.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM backups`+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count backups: %w", err)
	}
	rows, err := j.db.Q(ctx).QueryContext(ctx, `SELECT `+recCols+` FROM backups`+where+` ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list backups: %w", err)
	}
	defer rows.Close()
	out := []*BackupRecord{}
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan backup: %w", err)
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// claim moves the oldest queued record to running (one runner wins).
func (j *journal) claim(ctx context.Context, now time.Time) (*BackupRecord, error) {
	var id string
	err := j.db.Q(ctx).QueryRowContext(ctx, `SELECT id FROM backups WHERE status = 'queued' ORDER BY created_at LIMIT 1`).Scan(&id)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find queued backup: %w", err)
	}
	res, err := j.db.W(ctx).ExecContext(ctx, `UPDATE backups SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'`, now, id)
	if err != nil {
		return nil, fmt.Errorf("claim backup: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	return j.get(ctx, id)
}

func (j *journal) finish(ctx context.Context, r *BackupRecord, now time.Time) error {
	details, _ := json.Marshal(r.Details)
	_, err := j.db.W(ctx).ExecContext(ctx, `UPDATE backups SET status = ?, file_name = ?, size = ?, error = ?, details = ?, finished_at = ? WHERE id = ?`,
		r.Status, r.FileName, r.Size, r.Error, string(details), now, r.ID)
	if err != nil {
		return fmt.Errorf("finish backup record: %w", err)
	}
	return nil
}

func (j *journal) delete(ctx context.Context, id string) error {
	if _, err := j.db.W(ctx).ExecContext(ctx, `DELETE FROM backups WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete backup record: %w", err)
	}
	return nil
}

// failRunning marks records left running by a runner that stopped.
func (j *journal) failStale(ctx context.Context, before, now time.Time) error {
	_, err := j.db.W(ctx).ExecContext(ctx, `UPDATE backups SET status = 'failed', error = 'the backup runner stopped during the run', finished_at = ?
		WHERE status = 'running' AND started_at < ?`, now, before)
	return err
}
