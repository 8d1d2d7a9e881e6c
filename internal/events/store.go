package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

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
	rows, err := s.db.W(ctx).QueryContext(ctx, `SELECT id, event_name, resource_type, resource_id, scope_id, actor_id, payload, created_at
		FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	defer rows.Close()
	var out []event
	for rows.Next() {
		var e event
		var scope, actor sql.NullString
		var payload string
		if err := rows.Scan(&e.ID, &e.Name, &e.ResourceType, &e.ResourceID, &scope, &actor, &payload, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan outbox: %w", err)
		}
		e.ScopeID, e.ActorID, e.Payload = scope.String, actor.String, json.RawMessage(payload)
		out = append(out, e)
	}
	return out, rows.Err()
}

// deleteDispatched removes events whose jobs were just enqueued: the jobs
// carry everything delivery needs, so a dispatched row is never kept.
func (s *evStore) deleteDispatched(ctx context.Context, ids []int64) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM outbox WHERE id IN (`+store.Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return fmt.Errorf("delete dispatched outbox events: %w", err)
	}
	return nil
}

// lockDispatch makes one dispatcher at a time work on the outbox, which keeps
// events in commit order. SQLite's single writer does that by itself.
func (s *evStore) lockDispatch(ctx context.Context) (bool, error) {
	if s.db.Dialect != store.Postgres {
		return true, nil
	}
	var ok bool
	if err := s.db.W(ctx).QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7305020300)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("lock outbox dispatch: %w", err)
	}
	return ok, nil
}

// purgeDispatched deletes the events marked dispatched by earlier versions,
// which kept them for a week.
func (s *evStore) purgeDispatched(ctx context.Context) (int64, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM outbox WHERE dispatched_at IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("purge outbox: %w", err)
	}
	return res.RowsAffected()
}

// anyPending is a cheap read that spares idle dispatchers a write transaction.
func (s *evStore) anyPending(ctx context.Context) (bool, error) {
	var one int
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE dispatched_at IS NULL LIMIT 1`).Scan(&one)
	if store.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("peek outbox: %w", err)
	}
	return true, nil
}
