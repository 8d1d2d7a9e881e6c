package jobs

import (
	"context"
	"fmt"
	"time"
)

// Counts summarises the job table (dashboard, metrics).
type Counts struct {
	Pending       int            `json:"pending"`
	Running       int            `json:"running"`
	Succeeded     int            `json:"succeeded"`
	Failed        int            `json:"failed"`
	CompletedLast int            `json:"completedLastMinute" doc:"jobs finished (succeeded or failed) in the last 60 s"`
	FailedLastDay int            `json:"failedLastDay"`
	PendingByType map[string]int `json:"pendingByType"`
}

// Counts returns the number of jobs per status, the jobs finished in the
// last minute, failures of the last day and the pending jobs per type.
func (q *Queue) Counts(ctx context.Context) (Counts, error) {
	c := Counts{PendingByType: map[string]int{}}
	rows, err := q.db.Q(ctx).QueryContext(ctx, `SELECT status, type, count(*) FROM jobs GROUP BY status, type`)
	if err != nil {
		return c, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status, typ string
		var n int
		if err := rows.Scan(&status, &typ, &n); err != nil {
			return c, fmt.Errorf("scan job count: %w", err)
		}
		switch status {
		case StatusPending:
			c.Pending += n
			c.PendingByType[typ] += n
		case StatusRunning:
			c.Running += n
		case StatusSucceeded:
			c.Succeeded += n
		case StatusFailed:
			c.Failed += n
		}
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("count jobs: %w", err)
	}
	now := q.now().UTC()
	if err := q.db.Q(ctx).QueryRowContext(ctx, `SELECT
		COALESCE(SUM(CASE WHEN completed_at >= ? THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN status = ? AND completed_at >= ? THEN 1 ELSE 0 END), 0)
		FROM jobs WHERE completed_at >= ?`, now.Add(-time.Minute), StatusFailed, now.Add(-24*time.Hour), now.Add(-24*time.Hour)).
		Scan(&c.CompletedLast, &c.FailedLastDay); err != nil {
		return c, fmt.Errorf("count finished jobs: %w", err)
	}
	return c, nil
}
