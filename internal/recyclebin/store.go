package recyclebin

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type binStore struct{ db *store.DB }

const entryColumns = "id, node_id, kind, scope_id, title, deleted_by, deleted_at, payload, resource_id"

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner) (Entry, error) {
	var e Entry
	var by sql.NullString
	var payload string
	if err := r.Scan(&e.ID, &e.NodeID, &e.Kind, &e.ScopeID, &e.Title, &by, &e.DeletedAt, &payload, &e.ResourceID); err != nil {
		return e, err
	}
	e.DeletedBy = by.String
	e.DeletedAt = e.DeletedAt.UTC()
	e.Payload = []byte(payload)
	return e, nil
}

func (s *binStore) insert(ctx context.Context, e Entry) error {
	var by any
	if e.DeletedBy != "" {
		by = e.DeletedBy
	}
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO recycle_bin ("+entryColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		e.ID, e.NodeID, e.Kind, e.ScopeID, e.Title, by, e.DeletedAt, string(e.Payload), e.ResourceID)
	if err != nil {
		return fmt.Errorf("add recycle-bin entry: %w", s.db.Translate(err))
	}
	return nil
}

func (s *binStore) byID(ctx context.Context, id string) (Entry, error) {
	e, err := scanEntry(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+entryColumns+" FROM recycle_bin WHERE id = ?", id))
	if err != nil {
		return e, fmt.Errorf("load recycle-bin entry %s: %w", id, err)
	}
	return e, nil
}

func (s *binStore) delete(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM recycle_bin WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete recycle-bin entry %s: %w", id, err)
	}
	return nil
}

func (s *binStore) many(ctx context.Context, q string, args ...any) ([]Entry, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+entryColumns+" FROM recycle_bin WHERE "+q, args...)
	if err != nil {
		return nil, fmt.Errorf("list recycle-bin entries: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("list recycle-bin entries: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// list pages a node's entries, newest first.
func (s *binStore) list(ctx context.Context, nodeID string, offset, limit int) ([]Entry, int, error) {
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM recycle_bin WHERE node_id = ?", nodeID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count recycle-bin entries: %w", err)
	}
	es, err := s.many(ctx, "node_id = ? ORDER BY deleted_at DESC, id LIMIT ? OFFSET ?", nodeID, limit, offset)
	return es, total, err
}

// ref is what deciding an entry's visibility needs.
type ref struct{ id, scopeID, resourceID string }

// refs returns every entry of a node, newest first, without titles or payloads.
func (s *binStore) refs(ctx context.Context, nodeID string) ([]ref, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT id, scope_id, resource_id FROM recycle_bin WHERE node_id = ? ORDER BY deleted_at DESC, id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("list recycle-bin entries: %w", err)
	}
	defer rows.Close()
	var out []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.id, &r.scopeID, &r.resourceID); err != nil {
			return nil, fmt.Errorf("list recycle-bin entries: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// byIDs loads the given entries, newest first.
func (s *binStore) byIDs(ctx context.Context, ids []string) ([]Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return s.many(ctx, "id IN ("+store.Placeholders(len(ids))+") ORDER BY deleted_at DESC, id", args...)
}

// olderThan pages through entries deleted before `before`, in (deleted_at, id)
// order after the cursor, so that entries left behind (a failed purge) are
// not read again by the same run.
func (s *binStore) olderThan(ctx context.Context, before time.Time, after Entry, limit int) ([]Entry, error) {
	if after.ID == "" {
		return s.many(ctx, "deleted_at < ? ORDER BY deleted_at, id LIMIT ?", before, limit)
	}
	return s.many(ctx, "deleted_at < ? AND (deleted_at > ? OR (deleted_at = ? AND id > ?)) ORDER BY deleted_at, id LIMIT ?",
		before, after.DeletedAt, after.DeletedAt, after.ID, limit)
}

func (s *binStore) byScope(ctx context.Context, kind, scope string) ([]Entry, error) {
	return s.many(ctx, "kind = ? AND scope_id = ? ORDER BY deleted_at", kind, scope)
}

func (s *binStore) byKind(ctx context.Context, kind string) ([]Entry, error) {
	return s.many(ctx, "kind = ? ORDER BY deleted_at", kind)
}

func (s *binStore) ofNode(ctx context.Context, nodeID string) ([]Entry, error) {
	return s.many(ctx, "node_id = ? ORDER BY deleted_at", nodeID)
}

func (s *binStore) count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM recycle_bin").Scan(&n); err != nil {
		return 0, fmt.Errorf("count recycle-bin entries: %w", err)
	}
	return n, nil
}
