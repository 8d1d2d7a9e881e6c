package nodes

import (
	"context"
	"database/sql"
	"fmt"

	"coreportal/internal/store"
)

type nodeStore struct{ db *store.DB }

const nodeColumns = "id, parent_id, slug, title, description, sort_order, created_at, updated_at"

type scanner interface{ Scan(dest ...any) error }

func scanNode(r scanner) (*Node, error) {
	var n Node
	var parent sql.NullString
	if err := r.Scan(&n.ID, &parent, &n.Slug, &n.Title, &n.Description, &n.SortOrder, &n.CreatedAt, &n.UpdatedAt); err != nil {
		return nil, err
	}
	if parent.Valid {
		n.ParentID = &parent.String
	}
	n.CreatedAt, n.UpdatedAt = n.CreatedAt.UTC(), n.UpdatedAt.UTC()
	return &n, nil
}

func (s *nodeStore) byID(ctx context.Context, id string) (*Node, error) {
	n, err := scanNode(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+nodeColumns+" FROM nodes WHERE id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load node %s: %w", id, err)
	}
	return n, nil
}

// bySlug finds a child of parent ("" = root) by slug.
func (s *nodeStore) bySlug(ctx context.Context, parent, slug string) (*Node, error) {
	q := "SELECT " + nodeColumns + " FROM nodes WHERE parent_id = ? AND slug = ?"
	args := []any{parent, slug}
	if parent == "" {
		q = "SELECT " + nodeColumns + " FROM nodes WHERE parent_id IS NULL AND slug = ?"
		args = args[1:]
	}
	n, err := scanNode(s.db.Q(ctx).QueryRowContext(ctx, q, args...))
	if err != nil {
		return nil, fmt.Errorf("load node by slug %q: %w", slug, err)
	}
	return n, nil
}

func (s *nodeStore) all(ctx context.Context) ([]*Node, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+nodeColumns+" FROM nodes ORDER BY sort_order, title, id")
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	defer rows.Close()
	var out []*Node
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return nil, fmt.Errorf("list nodes: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *nodeStore) insert(ctx context.Context, n *Node) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO nodes ("+nodeColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		n.ID, nullable(n.Parent()), n.Slug, n.Title, n.Description, n.SortOrder, n.CreatedAt, n.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert node: %w", s.db.Translate(err))
	}
	return nil
}

func (s *nodeStore) update(ctx context.Context, n *Node) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE nodes SET parent_id = ?, slug = ?, title = ?, description = ?, sort_order = ?, updated_at = ?
		WHERE id = ?`, nullable(n.Parent()), n.Slug, n.Title, n.Description, n.SortOrder, n.UpdatedAt, n.ID)
	if err != nil {
		return fmt.Errorf("update node: %w", s.db.Translate(err))
	}
	return nil
}

func (s *nodeStore) delete(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM nodes WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete node: %w", s.db.Translate(err))
	}
	return nil
}

func (s *nodeStore) childCount(ctx context.Context, id string) (int, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM nodes WHERE parent_id = ?", id).Scan(&n); err != nil {
		return 0, fmt.Errorf("count child nodes: %w", err)
	}
	return n, nil
}
