package jobs

import (
	"context"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// PurgeFunc is told about finished jobs of its type that the journal
// retention is about to delete, so that it can remove what they produced
// (e.g. the files of survey exports). An error keeps those jobs for the next run.
type PurgeFunc func(ctx context.Context, jobs []*Job) error

const purgeBatch = 200

// OnPurge registers fn for finished jobs of jobType (before Run).
func (q *Queue) OnPurge(jobType string, fn PurgeFunc) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.purgers == nil {
		q.purgers = map[string]PurgeFunc{}
	}
	q.purgers[jobType] = fn
}

// purgeHooked hands finished jobs with a purge hook to it, batch by batch,
// and deletes each batch the hook accepted.
func (q *Queue) purgeHooked(ctx context.Context, cutoff time.Time) (int64, error) {
	q.mu.RLock()
	hooks := make(map[string]PurgeFunc, len(q.purgers))
	for t, fn := range q.purgers {
		hooks[t] = fn
	}
	q.mu.RUnlock()
	var n int64
	for jobType, fn := range hooks {
		for {
			js, err := q.st.finishedBefore(ctx, jobType, cutoff, purgeBatch)
			if err != nil {
				return n, err
			}
			if len(js) == 0 {
				break
			}
			if err := fn(ctx, js); err != nil {
				return n, fmt.Errorf("purge hook of %s: %w", jobType, err)
			}
			ids := make([]any, len(js))
			for i, j := range js {
				ids[i] = j.ID
			}
			k, err := q.st.deleteIDs(ctx, ids)
			if err != nil {
				return n, err
			}
			n += k
			if len(js) < purgeBatch {
				break
			}
		}
	}
	return n, nil
}

func (s *jobStore) finishedBefore(ctx context.Context, jobType string, cutoff time.Time, limit int) ([]*Job, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+jobCols+` FROM jobs
		WHERE type = ? AND status IN ('succeeded', 'failed') AND completed_at < ? ORDER BY completed_at LIMIT ?`, jobType, cutoff, limit)
	if err != nil {
		return nil, fmt.Errorf("read old jobs of %s: %w", jobType, err)
	}
	defer rows.Close()
	var out []*Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("scan job: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

func (s *jobStore) deleteIDs(ctx context.Context, ids []any) (int64, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM jobs WHERE id IN (`+store.Placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return 0, fmt.Errorf("delete old jobs: %w", err)
	}
	return res.RowsAffected()
}
