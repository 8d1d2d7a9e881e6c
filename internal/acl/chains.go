package acl

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"coreportal/internal/store"
)

// Link is one object of a chain: its type, parent and inheritance flag.
type Link struct {
	ID       string
	Type     Type
	Parent   string
	Inherits bool
}

// Chains returns, per object of ids, its chain as Level walks it: the
// object itself, then its parents while the object walked inherits and is
// of one of the types through (items, files), so the last link is either
// the nearest isolated object or the first object of another type (the
// container). Indexes that store chains (search) read them here; an id
// missing from the map is not registered.
func (e *Engine) Chains(ctx context.Context, ids []string, through ...Type) (map[string][]Link, error) {
	out := map[string][]Link{}
	if len(ids) == 0 {
		return out, nil
	}
	kinds := make([]string, 0, len(through))
	for _, t := range through {
		if !t.Valid() {
			return nil, fmt.Errorf("chains through %q: unknown type", t)
		}
		kinds = append(kinds, "'"+string(t)+"'")
	}
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	for _, chunk := range store.UniqueChunks(args, 500) {
		rows, err := e.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE chain(start, id, type, parent_id, inherits, depth) AS (
		SELECT o.id, o.id, o.type, o.parent_id, o.inherits, 0 FROM acl_objects o WHERE o.id IN (`+store.Placeholders(len(chunk))+`)
		UNION ALL
		SELECT c.start, o.id, o.type, o.parent_id, o.inherits, c.depth + 1 FROM acl_objects o JOIN chain c ON o.id = c.parent_id
		WHERE c.inherits = ? AND c.type IN (`+strings.Join(kinds, ", ")+`) AND c.depth < 64)
		SELECT start, id, type, parent_id, inherits FROM chain ORDER BY start, depth`, append(append([]any{}, chunk...), true)...)
		if err != nil {
			return nil, fmt.Errorf("access chains: %w", err)
		}
		err = scanLinks(rows, func(start string, l Link) { out[start] = append(out[start], l) })
		if err != nil {
			return nil, fmt.Errorf("access chains: %w", err)
		}
	}
	return out, nil
}

// LockLinks locks the objects FOR SHARE until the transaction ends
// (PostgreSQL; SQLite runs one writer at a time) and returns them as they
// are now, so that a chain read before can be checked against them.
func (e *Engine) LockLinks(ctx context.Context, ids []string) (map[string]Link, error) {
	out := map[string]Link{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	lock := ""
	if e.db.Dialect == store.Postgres {
		lock = " FOR SHARE"
	}
	rows, err := e.db.W(ctx).QueryContext(ctx, "SELECT id, id, type, parent_id, inherits FROM acl_objects WHERE id IN ("+
		store.Placeholders(len(ids))+") ORDER BY id"+lock, args...)
	if err != nil {
		return nil, fmt.Errorf("lock access chains: %w", err)
	}
	if err := scanLinks(rows, func(_ string, l Link) { out[l.ID] = l }); err != nil {
		return nil, fmt.Errorf("lock access chains: %w", err)
	}
	return out, nil
}

func scanLinks(rows *sql.Rows, fn func(start string, l Link)) error {
	defer rows.Close()
	for rows.Next() {
		var start string
		var l Link
		var parent sql.NullString
		if err := rows.Scan(&start, &l.ID, &l.Type, &parent, &l.Inherits); err != nil {
			return err
		}
		l.Parent = parent.String
		fn(start, l)
	}
	return rows.Err()
}
