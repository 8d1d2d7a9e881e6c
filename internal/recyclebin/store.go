package recyclebin

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/store"
)

type binStore struct{ db *store.DB }

const entryColumns = "id, node_id, kind, scope_id, title, deleted_by, deleted_at, payload"

type scanner interface{ Scan(dest ...any) error }

func scanEntry(r scanner) (Entry, error) {
	var e Entry
	var by sql.NullString
	var payload string
	if err := r.Scan(&e.ID, &e.NodeID, &e.Kind, &e.ScopeID, &e.Title, &by, &e.DeletedAt, &payload); err != nil {
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
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO recycle_bin ("+entryColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		e.ID, e.NodeID, e.Kind, e.ScopeID, e.Title, by, e.DeletedAt, string(e.Payload))
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

// list pages a node's entries, newest first, leaving out the entries whose
// scope_id is in hidden.
func (s *binStore) list(ctx context.Context, nodeID string, hidden []string, offset, limit int) ([]Entry, int, error) {
	where := "node_id = ?"
	args := []any{nodeID}
	if len(hidden) > 0 {
		where += " AND scope_id NOT IN (?" + strings.Repeat(", ?", len(hidden)-1) + ")"
		for _, h := range hidden {
			args = append(args, h)
		}
	}
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM recycle_bin WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count recycle-bin entries: %w", err)
	}
	es, err := s.many(ctx, where+" ORDER BY deleted_at DESC, id LIMIT ? OFFSET ?", append(args, limit, offset)...)
	return es, total, err
}

// scopes returns the distinct scope ids of a node's entries.
func (s *binStore) scopes(ctx context.Context, nodeID string) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT DISTINCT scope_id FROM recycle_bin WHERE node_id = ?", nodeID)
	if err != nil {
		return nil, fmt.Errorf("scopes of recycle-bin entries: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("scopes of recycle-bin entries: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
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
