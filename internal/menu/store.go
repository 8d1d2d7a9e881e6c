package menu

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

type menuStore struct{ db *store.DB }

// row is one stored menu item.
type row struct {
	ID           string
	NodeID       string
	ParentItemID string
	Title        string
	Link         string
	ResourceType string
	ResourceID   string
	OpenInNewTab bool
	SortOrder    int
}

const itemColumns = "id, node_id, parent_item_id, title, link, resource_type, resource_id, open_in_new_tab, sort_order"

func scanRow(r interface{ Scan(...any) error }) (row, error) {
	var x row
	var parent, rt, rid sql.NullString
	err := r.Scan(&x.ID, &x.NodeID, &parent, &x.Title, &x.Link, &rt, &rid, &x.OpenInNewTab, &x.SortOrder)
	x.ParentItemID, x.ResourceType, x.ResourceID = parent.String, rt.String, rid.String
	return x, err
}

func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *menuStore) items(ctx context.Context, nodeID string) ([]row, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+itemColumns+" FROM menu_items WHERE node_id = ? ORDER BY sort_order, created_at, id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("menu of %s: %w", nodeID, err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		x, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("menu of %s: %w", nodeID, err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

func (s *menuStore) item(ctx context.Context, nodeID, id string) (row, error) {
	x, err := scanRow(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+itemColumns+" FROM menu_items WHERE id = ? AND node_id = ?", id, nodeID))
	if err != nil {
		return x, fmt.Errorf("menu item %s: %w", id, err)
	}
	return x, nil
}

func (s *menuStore) insert(ctx context.Context, x row, now time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO menu_items ("+itemColumns+", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		x.ID, x.NodeID, null(x.ParentItemID), x.Title, x.Link, null(x.ResourceType), null(x.ResourceID), x.OpenInNewTab, x.SortOrder, now, now)
	if err != nil {
		return fmt.Errorf("insert menu item: %w", s.db.Translate(err))
	}
	return nil
}

func (s *menuStore) update(ctx context.Context, x row, now time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE menu_items SET parent_item_id = ?, title = ?, link = ?, resource_type = ?, resource_id = ?,
		open_in_new_tab = ?, sort_order = ?, updated_at = ? WHERE id = ?`,
		null(x.ParentItemID), x.Title, x.Link, null(x.ResourceType), null(x.ResourceID), x.OpenInNewTab, x.SortOrder, now, x.ID)
	if err != nil {
		return fmt.Errorf("update menu item: %w", err)
	}
	return nil
}

func (s *menuStore) delete(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM menu_items WHERE id = ?", id); err != nil {
			return fmt.Errorf("delete menu item: %w", err)
		}
	}
	return nil
}

func (s *menuStore) inheritParent(ctx context.Context, nodeID string) (bool, error) {
	var v bool
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT inherit_parent FROM menu_settings WHERE node_id = ?", nodeID).Scan(&v)
	if store.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("menu settings of %s: %w", nodeID, err)
	}
	return v, nil
}

func (s *menuStore) setInheritParent(ctx context.Context, nodeID string, v bool, now time.Time) error {
	res, err := s.db.W(ctx).ExecContext(ctx, "UPDATE menu_settings SET inherit_parent = ?, updated_at = ? WHERE node_id = ?", v, now, nodeID)
	if err != nil {
		return fmt.Errorf("save menu settings: %w", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO menu_settings (node_id, inherit_parent, updated_at) VALUES (?, ?, ?)", nodeID, v, now); err != nil {
		return fmt.Errorf("save menu settings: %w", s.db.Translate(err))
	}
	return nil
}
