package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type evStore struct{ db *store.DB }

const recvCols = `id, event_name, title, service_key, job_type, config, list_id, created_by, created_at`

func scanReceiver(sc interface{ Scan(...any) error }) (*Receiver, error) {
	var r Receiver
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

func (s *evStore) insert(ctx context.Context, r *Receiver) error {
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

func (s *evStore) query(ctx context.Context, q string, args ...any) ([]*Receiver, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list event receivers: %w", err)
	}
	defer rows.Close()
	out := []*Receiver{}
	for rows.Next() {
		r, err := scanReceiver(rows)
		if err != nil {
			return nil, fmt.Errorf("scan event receiver: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *evStore) list(ctx context.Context, listID string) ([]*Receiver, error) {
	if listID != "" {
		return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers WHERE list_id = ? ORDER BY created_at, id`, listID)
	}
	return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers ORDER BY created_at, id`)
}

// matching returns the receivers of an event: unscoped ones and those of its list.
func (s *evStore) matching(ctx context.Context, name, scope string) ([]*Receiver, error) {
	return s.query(ctx, `SELECT `+recvCols+` FROM event_receivers WHERE event_name = ? AND (list_id IS NULL OR list_id = ?) ORDER BY created_at, id`, name, scope)
}

func (s *evStore) get(ctx context.Context, id string) (*Receiver, error) {
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

func (s *evStore) markDispatched(ctx context.Context, ids []int64, now time.Time) error {
	args := []any{now}
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE outbox SET dispatched_at = ? WHERE id IN (`+store.Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return fmt.Errorf("mark outbox dispatched: %w", err)
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
