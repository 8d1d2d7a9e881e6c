package release

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type jobStore struct{ db *store.DB }

const jobCols = `id, status, phase, from_version, to_version, channel, platform, message, created_at, started_at, completed_at`

func scanJob(sc interface{ Scan(...any) error }) (*UpdateJob, error) {
	var j UpdateJob
	var started, completed sql.NullTime
	if err := sc.Scan(&j.ID, &j.Status, &j.Phase, &j.FromVersion, &j.ToVersion, &j.Channel, &j.Platform, &j.Message,
		&j.CreatedAt, &started, &completed); err != nil {
		return nil, err
	}
	j.CreatedAt = j.CreatedAt.UTC()
	if started.Valid {
		t := started.Time.UTC()
		j.StartedAt = &t
	}
	if completed.Valid {
		t := completed.Time.UTC()
		j.CompletedAt = &t
	}
	return &j, nil
}

// insert stores a queued job; the unique active_slot refuses a second
// active job (store.ErrUnique).
func (s *jobStore) insert(ctx context.Context, j *UpdateJob, createdBy string) error {
	var by any
	if createdBy != "" {
		by = createdBy
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO update_jobs (id, status, phase, active_slot, from_version, to_version, channel, platform, message, created_by, created_at)
		VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.Status, j.Phase, j.FromVersion, j.ToVersion, j.Channel, j.Platform, j.Message, by, j.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert update job: %w", s.db.Translate(err))
	}
	return nil
}

func (s *jobStore) get(ctx context.Context, id string) (*UpdateJob, error) {
	return scanJob(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+jobCols+` FROM update_jobs WHERE id = ?`, id))
}

// latest returns the newest job, nil when there is none.
func (s *jobStore) latest(ctx context.Context) (*UpdateJob, error) {
	j, err := scanJob(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+jobCols+` FROM update_jobs ORDER BY created_at DESC, id DESC LIMIT 1`))
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read latest update job: %w", err)
	}
	return j, nil
}

// active returns the queued or running job, nil when there is none.
func (s *jobStore) active(ctx context.Context) (*UpdateJob, error) {
	j, err := scanJob(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+jobCols+` FROM update_jobs WHERE active_slot IS NOT NULL`))
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read active update job: %w", err)
	}
	return j, nil
}

// claim moves the queued job to running (phase entitle); nil when none waits.
func (s *jobStore) claim(ctx context.Context, now time.Time) (*UpdateJob, error) {
	j, err := s.active(ctx)
	if err != nil || j == nil || j.Status != StatusQueued {
		return nil, err
	}
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE update_jobs SET status = ?, phase = ?, started_at = ?, message = ?
		WHERE id = ? AND status = ?`, StatusRunning, PhaseEntitle, now, "asking the vendor for the package", j.ID, StatusQueued)
	if err != nil {
		return nil, fmt.Errorf("claim update job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil // another runner took it
	}
	return s.get(ctx, j.ID)
}

// progress moves a running job to phase; done and failed end it.
func (s *jobStore) progress(ctx context.Context, id, phase, message string, now time.Time) (bool, error) {
	status, slot, completed := StatusRunning, any("active"), any(nil)
	switch phase {
	case PhaseDone:
		status, slot, completed = StatusSucceeded, nil, now
	case PhaseFailed:
		status, slot, completed = StatusFailed, nil, now
	}
	res, err := s.db.W(ctx).ExecContext(ctx, `UPDATE update_jobs SET status = ?, phase = ?, active_slot = ?, message = ?, completed_at = ?
		WHERE id = ? AND status = ?`, status, phase, slot, message, completed, id, StatusRunning)
	if err != nil {
		return false, fmt.Errorf("update job progress: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// failActive ends an active job that nobody will finish.
func (s *jobStore) failActive(ctx context.Context, id, message string, now time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE update_jobs SET status = ?, phase = ?, active_slot = NULL, message = ?, completed_at = ?
		WHERE id = ? AND active_slot IS NOT NULL`, StatusFailed, PhaseFailed, message, now, id)
	if err != nil {
		return fmt.Errorf("fail stale update job: %w", err)
	}
	return nil
}
