// Package outbox records domain events in the same transaction as the change
// that caused them; the platform's dispatcher delivers them after commit.
package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// Event is one domain event, e.g. listItem.created.
type Event struct {
	Name         string // listItem.created, listItem.updated, listItem.deleted, …
	ResourceType string // list_item, file, …
	ResourceID   string
	ScopeID      string // the list or library the resource belongs to (receiver scoping)
	ActorID      string // user who caused it; empty for the system
	Payload      any    // snapshot delivered to handlers
}

// Write appends e using the transaction bound to ctx (call inside db.InTx).
func Write(ctx context.Context, db *store.DB, e Event) error {
	payload, err := json.Marshal(e.Payload)
	if err != nil {
		return fmt.Errorf("encode event %s: %w", e.Name, err)
	}
	var actor any
	if e.ActorID != "" {
		actor = e.ActorID
	}
	var scope any
	if e.ScopeID != "" {
		scope = e.ScopeID
	}
	// queued: sent with the transaction's next statement (store.Queue)
	return db.Queue(ctx, "write event "+e.Name, `INSERT INTO outbox (event_name, resource_type, resource_id, scope_id, actor_id, payload, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, e.Name, e.ResourceType, e.ResourceID, scope, actor, string(payload), time.Now().UTC())
}

// WriteAll appends events as Write does, 1,000 per statement.
func WriteAll(ctx context.Context, db *store.DB, es []Event) error {
	now := time.Now().UTC()
	for len(es) > 0 {
		n := min(len(es), 1000)
		args := make([]any, 0, n*7)
		for _, e := range es[:n] {
			payload, err := json.Marshal(e.Payload)
			if err != nil {
				return fmt.Errorf("encode event %s: %w", e.Name, err)
			}
			var actor, scope any
			if e.ActorID != "" {
				actor = e.ActorID
			}
			if e.ScopeID != "" {
				scope = e.ScopeID
			}
			args = append(args, e.Name, e.ResourceType, e.ResourceID, scope, actor, string(payload), now)
		}
		// queued: sent with the transaction's next statement (store.Queue)
		if err := db.Queue(ctx, fmt.Sprintf("write %d events (first %s)", n, es[0].Name), `INSERT INTO outbox (event_name, resource_type,
			resource_id, scope_id, actor_id, payload, created_at) VALUES `+store.Tuples(n, 7), args...); err != nil {
			return err
		}
		es = es[n:]
	}
	return nil
}
