package pages

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/store"
)

type pageStore struct{ db *store.DB }

const pageColumns = "id, node_id, slug, title, content, created_by, updated_by, created_at, updated_at"

type scanner interface{ Scan(dest ...any) error }

func scanPage(r scanner) (*Page, error) {
	var p Page
	var createdBy, updatedBy sql.NullString
	if err := r.Scan(&p.ID, &p.NodeID, &p.Slug, &p.Title, &p.Content, &createdBy, &updatedBy, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return nil, err
	}
	if createdBy.Valid {
		p.CreatedBy = &createdBy.String
	}
	if updatedBy.Valid {
		p.UpdatedBy = &updatedBy.String
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return &p, nil
}

// page loads a live page (sql.ErrNoRows when absent or in the recycle bin).
func (s *pageStore) page(ctx context.Context, id string) (*Page, error) {
	p, err := scanPage(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+pageColumns+" FROM pages WHERE id = ? AND deleted_at IS NULL", id))
	if err != nil {
		return nil, fmt.Errorf("load page %s: %w", id, err)
	}
	return p, nil
}

// pageAny loads a page whether or not it is in the recycle bin.
func (s *pageStore) pageAny(ctx context.Context, id string) (*Page, error) {
	p, err := scanPage(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+pageColumns+" FROM pages WHERE id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load page %s: %w", id, err)
	}
	return p, nil
}

// ofNode returns the live pages of a node ordered by title.
func (s *pageStore) ofNode(ctx context.Context, nodeID string) ([]*Page, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+pageColumns+" FROM pages WHERE node_id = ? AND deleted_at IS NULL ORDER BY title, id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("pages of node %s: %w", nodeID, err)
	}
	defer rows.Close()
	var out []*Page
	for rows.Next() {
		p, err := scanPage(rows)
		if err != nil {
			return nil, fmt.Errorf("pages of node %s: %w", nodeID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// bySlug returns the id of the live page with slug on a node.
func (s *pageStore) bySlug(ctx context.Context, nodeID, slug string) (string, error) {
	var id string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT id FROM pages WHERE node_id = ? AND slug = ? AND deleted_at IS NULL", nodeID, slug).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("page %q of node %s: %w", slug, nodeID, err)
	}
	return id, nil
}

func (s *pageStore) insert(ctx context.Context, p *Page) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO pages ("+pageColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		p.ID, p.NodeID, p.Slug, p.Title, p.Content, p.CreatedBy, p.UpdatedBy, p.CreatedAt, p.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert page: %w", s.db.Translate(err))
	}
	return nil
}

// pageCols are the columns an update may write (whitelist).
var pageCols = map[string]bool{"slug": true, "title": true, "content": true}

func (s *pageStore) update(ctx context.Context, p *Page, cols []string) error {
	sets := []string{"updated_at = ?", "updated_by = ?"}
	args := []any{p.UpdatedAt, p.UpdatedBy}
	for _, c := range cols {
		if !pageCols[c] {
			return fmt.Errorf("update page: column %q not allowed", c)
		}
		sets = append(sets, c+" = ?")
		switch c {
		case "slug":
			args = append(args, p.Slug)
		case "title":
			args = append(args, p.Title)
		case "content":
			args = append(args, p.Content)
		}
	}
	args = append(args, p.ID)
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE pages SET "+strings.Join(sets, ", ")+" WHERE id = ? AND deleted_at IS NULL", args...)
	if err != nil {
		return fmt.Errorf("update page: %w", s.db.Translate(err))
	}
	return nil
}

func (s *pageStore) setDeleted(ctx context.Context, id string, at *time.Time) error {
	var v any
	if at != nil {
		v = *at
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE pages SET deleted_at = ? WHERE id = ?", v, id); err != nil {
		return fmt.Errorf("mark page deleted: %w", s.db.Translate(err))
	}
	return nil
}

func (s *pageStore) delete(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM pages WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete page: %w", err)
	}
	return nil
}
