package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"coreportal/internal/outbox"
	"coreportal/internal/store"
)

type evStore struct{ db *store.DB }

const recvCols = `id, event_name, title, service_key, job_type, config, list_id, created_by, created_at`

func scanReceiver(sc interface{ Scan(...any) error }) (*EventReceiver, error) {
	var r EventReceiver
	var cfg string
	var list, by sql.NullString
	if err := sc.Scan(&r.ID, &r.EventName, &r.Title, &r.ServiceKey, &r.JobType, &cfg, &list, &by, &r.CreatedAt); err != nil {
		return nil, err
	}
	r.Config = map[string]any{}
	_ = json.Unmarshal([]byte(cfg), &r.Config)
	if list.Valid {
		r.ListID = &list.String
	}
	if by.Valid {
		r.CreatedBy = &by.String
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

func (s *evStore) insert(ctx context.Context, r *EventReceiver) error {
	cfg, err := json.Marshal(r.Config)
	if err != nil {
		return fmt.Errorf("encode receiver config: %w", err)
	}
	_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO event_receivers (`+recvCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.EventName, r.Title, r.ServiceKey, r.JobType, string(cfg), r.ListID, r.CreatedBy, r.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert event receiver: %w", err)
	}
	return nil
}

func (s *evStore) query(ctx context.Context, q string, args ...any) ([]*EventReceiver, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list event receivers: %w", err)
	}
	defer rows.Close()
	out := []*EventReceiver{}
	for rows.Next() {
		r, err := scanReceiver(rows)
		if err != nil {
			return nil, fmt.Errorf("scan event receiver: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *evStore) list(ctx context.Context, listID string) ([]*EventReceiver, error) {
	if listID != "" {
		return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers WHERE list_id = ? ORDER BY created_at, id`, listID)
	}
	return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers ORDER BY created_at, id`)
}

// matching returns the receivers of an event: unscoped ones and those of its list.
func (s *evStore) matching(ctx context.Context, name, scope string) ([]*EventReceiver, error) {
	return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers WHERE event_name = ? AND (list_id IS NULL OR list_id = ?) ORDER BY created_at, id`, name, scope)
}

func (s *evStore) get(ctx context.Context, id string) (*EventReceiver, error) {
	return scanReceiver(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+recvCols+` FROM event_receivers WHERE id = ?`, id))
}

func (s *evStore) delete(ctx context.Context, id string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM event_receivers WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete event receiver: %w", err)
	}
	return nil
}

// pending returns undispatched outbox events in commit order.
func (s *evStore) pending(ctx context.Context, limit int) ([]event, error) {
	stored, err := outbox.Pending(ctx, s.db, limit)
	if err != nil {
		return nil, err
	}
	out := make([]event, len(stored))
	for i, e := range stored {
		out[i] = event(e)
	}
	return out, nil
}

// deleteDispatched removes events whose jobs were just enqueued: the jobs
// carry everything delivery needs, so a dispatched row is never kept.
func (s *evStore) deleteDispatched(ctx context.Context, ids []int64) error {
	return outbox.Delete(ctx, s.db, ids)
}

// lockDispatch makes one dispatcher at a time work on the outbox.
func (s *evStore) lockDispatch(ctx context.Context) (bool, error) {
	return outbox.LockDispatch(ctx, s.db)
}

// purgeDispatched deletes events marked dispatched.
func (s *evStore) purgeDispatched(ctx context.Context) (int64, error) {
	return outbox.PurgeDispatched(ctx, s.db)
}

// anyPending is a cheap read that spares idle dispatchers a write transaction.
func (s *evStore) anyPending(ctx context.Context) (bool, error) { return outbox.AnyPending(ctx, s.db) }
