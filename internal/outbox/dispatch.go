package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// Stored is one recorded event not yet dispatched.
type Stored struct {
	ID           int64
	Name         string
	ResourceType string
	ResourceID   string
	ScopeID      string
	ActorID      string
	Payload      json.RawMessage
	CreatedAt    time.Time
}

// Pending returns undispatched events in commit order, at most limit.
func Pending(ctx context.Context, db *store.DB, limit int) ([]Stored, error) {
	rows, err := db.W(ctx).QueryContext(ctx, `SELECT id, event_name, resource_type, resource_id, scope_id, actor_id, payload, created_at
		FROM outbox WHERE dispatched_at IS NULL ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	defer rows.Close()
	var out []Stored
	for rows.Next() {
		var e Stored
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

// Delete removes dispatched events (their jobs carry everything delivery needs).
func Delete(ctx context.Context, db *store.DB, ids []int64) error {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := db.W(ctx).ExecContext(ctx, `DELETE FROM outbox WHERE id IN (`+store.Placeholders(len(ids))+`)`, args...)
	if err != nil {
		return fmt.Errorf("delete dispatched outbox events: %w", err)
	}
	return nil
}

// LockDispatch makes one dispatcher at a time work on the outbox (in the
// transaction bound to ctx), which keeps events in commit order. SQLite's
// single writer does that by itself.
func LockDispatch(ctx context.Context, db *store.DB) (bool, error) {
	if db.Dialect != store.Postgres {
		return true, nil
	}
	var ok bool
	if err := db.W(ctx).QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(7305020300)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("lock outbox dispatch: %w", err)
	}
	return ok, nil
}

// PurgeDispatched deletes events marked dispatched: a dispatched event is
// never kept.
func PurgeDispatched(ctx context.Context, db *store.DB) (int64, error) {
	res, err := db.W(ctx).ExecContext(ctx, `DELETE FROM outbox WHERE dispatched_at IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("purge outbox: %w", err)
	}
	return res.RowsAffected()
}

// AnyPending is a cheap read that spares idle dispatchers a write transaction.
func AnyPending(ctx context.Context, db *store.DB) (bool, error) {
	var one int
	err := db.Q(ctx).QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE dispatched_at IS NULL LIMIT 1`).Scan(&one)
	if store.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("peek outbox: %w", err)
	}
	return true, nil
}
