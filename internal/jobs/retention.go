package jobs

import (
	"context"
	"strconv"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/settings"
)

// DefaultRetentionDays is the job journal retention of SPEC.md.
const DefaultRetentionDays = 30

const retentionKey = "jobs.retention_days"

// Retention returns the number of days finished jobs are kept.
func (q *Queue) Retention(ctx context.Context) (int, error) {
	v, ok, err := settings.New(q.db).Get(ctx, retentionKey)
	if err != nil || !ok {
		return DefaultRetentionDays, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return DefaultRetentionDays, nil
	}
	return n, nil
}

// SetRetention stores the retention in days (1-3650).
func (q *Queue) SetRetention(ctx context.Context, days int) error {
	if days < 1 || days > 3650 {
		return fault.Validation("retentionDays", "retentionDays must be between 1 and 3650")
	}
	return settings.New(q.db).Set(ctx, retentionKey, strconv.Itoa(days))
}

// Cleanup deletes finished jobs older than the retention (service jobs-cleanup).
func (q *Queue) Cleanup(ctx context.Context) (any, error) {
	days, err := q.Retention(ctx)
	if err != nil {
		return nil, err
	}
	n, err := q.DeleteCompleted(ctx, time.Duration(days)*24*time.Hour)
	if err != nil {
		return nil, err
	}
	return map[string]any{"deleted": n, "retentionDays": days}, nil
}
