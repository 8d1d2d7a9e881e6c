package acl

import (
	"context"
	"fmt"

	"coreportal/internal/audit"
	"coreportal/internal/store"
)

// Entry is one explicit permission record.
type Entry struct {
	ID            string
	ResourceType  Type
	ResourceID    string
	PrincipalType string
	PrincipalID   string
	PrincipalName string
	Level         Level
}

// Entries returns the explicit records of a resource (no inherited ones),
// with the principal's display name (user display name or group name).
func (e *Engine) Entries(ctx context.Context, ref Ref) ([]Entry, error) {
	rows, err := e.db.Q(ctx).QueryContext(ctx, `SELECT e.id, e.resource_type, e.resource_id, e.principal_type, e.principal_id, e.level,
		COALESCE(u.display_name, g.name, '')
		FROM acl_entries e
		LEFT JOIN users u ON e.principal_type = 'user' AND u.id = e.principal_id
		LEFT JOIN groups g ON e.principal_type = 'group' AND g.id = e.principal_id
		WHERE e.resource_id = ? ORDER BY e.principal_type, COALESCE(u.display_name, g.name, ''), e.id`, ref.ID)
	if err != nil {
		return nil, fmt.Errorf("records of %s: %w", ref.ID, err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var x Entry
		if err := rows.Scan(&x.ID, &x.ResourceType, &x.ResourceID, &x.PrincipalType, &x.PrincipalID, &x.Level, &x.PrincipalName); err != nil {
			return nil, fmt.Errorf("records of %s: %w", ref.ID, err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// EntryByID returns one record (store.ErrNotFound when absent).
func (e *Engine) EntryByID(ctx context.Context, id string) (Entry, error) {
	var x Entry
	if !validID(id) {
		return x, store.ErrNotFound
	}
	err := e.db.Q(ctx).QueryRowContext(ctx, `SELECT id, resource_type, resource_id, principal_type, principal_id, level
		FROM acl_entries WHERE id = ?`, id).Scan(&x.ID, &x.ResourceType, &x.ResourceID, &x.PrincipalType, &x.PrincipalID, &x.Level)
	return x, err
}

// Grant writes (or overwrites) the record of one principal on ref, in the
// caller's transaction when there is one, and invalidates the cache.
func (e *Engine) Grant(ctx context.Context, ref Ref, principalType, principalID string, lvl Level) (string, error) {
	var id string
	err := e.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		var err error
		id, err = e.st.upsert(ctx, ref, grant{PrincipalType: principalType, PrincipalID: principalID, Level: lvl}, false)
		if err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: audit.ACLGrant, ResourceType: string(ref.Type), ResourceID: ref.ID,
			After: map[string]any{"recordId": id, "principalType": principalType, "principalId": principalID, "permissionLevel": lvl.String()}})
		e.Invalidate(ctx)
		return nil
	})
	return id, err
}

// Revoke deletes one record by id.
func (e *Engine) Revoke(ctx context.Context, id string) error {
	return e.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if _, err := e.db.W(ctx).ExecContext(ctx, "DELETE FROM acl_entries WHERE id = ?", id); err != nil {
			return fmt.Errorf("delete record %s: %w", id, err)
		}
		e.Invalidate(ctx)
		return nil
	})
}

// ForgetPrincipal deletes every record of a principal (a deleted group or
// user), so that its records stop applying.
func (e *Engine) ForgetPrincipal(ctx context.Context, principalType, principalID string) error {
	if _, err := e.db.W(ctx).ExecContext(ctx, "DELETE FROM acl_entries WHERE principal_type = ? AND principal_id = ?", principalType, principalID); err != nil {
		return fmt.Errorf("delete records of %s %s: %w", principalType, principalID, err)
	}
	e.Invalidate(ctx)
	return nil
}
