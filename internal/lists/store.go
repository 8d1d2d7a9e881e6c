package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/store"
)

// Store is the SQL of list metadata (lists, fields, views, versions, attachments).
type Store struct {
	db *store.DB
	// displays fills the displays of person and lookup values of items read (Service.fillDisplays)
	displays func(ctx context.Context, fields []*field.Def, items []*Item) error
}

// filled runs the display hook over items read.
func (s *Store) filled(ctx context.Context, fields []*field.Def, items []*Item) error {
	if s.displays == nil {
		return nil
	}
	return s.displays(ctx, fields, items)
}

const listColumns = `id, node_id, slug, title, description, form_config, versioning_enabled, search_enabled, table_name,
	next_col, COALESCE(created_by, ''), created_at, updated_at`

type scanner = store.Scanner

func scanList(r scanner) (*List, error) {
	var l List
	var fc string
	if err := r.Scan(&l.ID, &l.NodeID, &l.Slug, &l.Title, &l.Description, &fc, &l.VersioningEnabled, &l.SearchEnabled,
		&l.Table, &l.NextCol, &l.CreatedBy, &l.CreatedAt, &l.UpdatedAt); err != nil {
		return nil, err
	}
	l.FormConfig = json.RawMessage(fc)
	l.CreatedAt, l.UpdatedAt = l.CreatedAt.UTC(), l.UpdatedAt.UTC()
	return &l, nil
}

func (s *Store) list(ctx context.Context, id string) (*List, error) {
	l, err := scanList(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+listColumns+" FROM lists WHERE id = ? AND deleted_at IS NULL", id))
	if err != nil {
		return nil, fmt.Errorf("load list %s: %w", id, err)
	}
	return l, nil
}

// listAny loads a list whether or not it is in the recycle bin.
func (s *Store) listAny(ctx context.Context, id string) (*List, error) {
	l, err := scanList(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+listColumns+" FROM lists WHERE id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load list %s: %w", id, err)
	}
	return l, nil
}

func (s *Store) listsOfNode(ctx context.Context, nodeID string) ([]*List, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+listColumns+" FROM lists WHERE node_id = ? AND deleted_at IS NULL ORDER BY title, id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("lists of node: %w", err)
	}
	return store.AppendRows(rows, nil, scanList)
}

func (s *Store) listBySlug(ctx context.Context, nodeID, slug string) (string, error) {
	var id string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT id FROM lists WHERE node_id = ? AND slug = ? AND deleted_at IS NULL", nodeID, slug).Scan(&id)
	return id, err
}

func (s *Store) insertList(ctx context.Context, l *List) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO lists (id, node_id, slug, title, description, form_config, versioning_enabled,
		search_enabled, table_name, next_col, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.NodeID, l.Slug, l.Title, l.Description, string(l.FormConfig), l.VersioningEnabled, l.SearchEnabled, l.Table,
		l.NextCol, l.CreatedBy, l.CreatedAt, l.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert list: %w", s.db.Translate(err))
	}
	return nil
}

// updateList writes the given columns of a list (names from listPatchColumns
// only) and updated_at; next_col is never written here (see allocColumn).
func (s *Store) updateList(ctx context.Context, l *List, cols []string) error {
	q := "UPDATE lists SET "
	var args []any
	for _, c := range cols {
		var v any
		switch c {
		case "slug":
			v = l.Slug
		case "title":
			v = l.Title
		case "description":
			v = l.Description
		case "form_config":
			v = string(l.FormConfig)
		case "versioning_enabled":
			v = l.VersioningEnabled
		case "search_enabled":
			v = l.SearchEnabled
		default:
			return fmt.Errorf("update list: column %q cannot be updated", c)
		}
		q += c + " = ?, "
		args = append(args, v)
	}
	args = append(args, l.UpdatedAt, l.ID)
	if _, err := s.db.W(ctx).ExecContext(ctx, q+"updated_at = ? WHERE id = ?", args...); err != nil {
		return fmt.Errorf("update list: %w", s.db.Translate(err))
	}
	return nil
}

// allocColumn reserves the next column number of a list atomically and
// returns the new next_col (the reserved column is next_col - 1).
func (s *Store) allocColumn(ctx context.Context, listID string, now time.Time) (int, error) {
	var next int
	err := s.db.W(ctx).QueryRowContext(ctx, "UPDATE lists SET next_col = next_col + 1, updated_at = ? WHERE id = ? RETURNING next_col",
		now, listID).Scan(&next)
	if err != nil {
		return 0, fmt.Errorf("allocate field column: %w", s.db.Translate(err))
	}
	return next, nil
}

func (s *Store) setDeleted(ctx context.Context, id string, at *time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE lists SET deleted_at = ? WHERE id = ?", at, id)
	if err != nil {
		return fmt.Errorf("mark list deleted: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) deleteList(ctx context.Context, id string) error {
	q := s.db.W(ctx)
	for _, t := range []string{"list_attachments", "list_item_versions", "list_views", "list_fields"} {
		if _, err := q.ExecContext(ctx, "DELETE FROM "+t+" WHERE list_id = ?", id); err != nil {
			return fmt.Errorf("purge %s: %w", t, err)
		}
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM list_item_counts WHERE list_id = ?", id); err != nil {
		return fmt.Errorf("purge list_item_counts: %w", err)
	}
	if _, err := q.ExecContext(ctx, "DELETE FROM lists WHERE id = ?", id); err != nil {
		return fmt.Errorf("purge list: %w", err)
	}
	return nil
}

var fieldColumns = field.Columns("list_id") + ", col, is_system"

func (s *Store) fields(ctx context.Context, listID string) ([]*field.Def, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fieldColumns+" FROM list_fields WHERE list_id = ? ORDER BY sort_order, created_at, id", listID)
	if err != nil {
		return nil, fmt.Errorf("fields of list: %w", err)
	}
	fields, err := store.AppendRows(rows, nil, scanField)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		if f.System && f.InternalName == sysCreatedBy {
			fields[i] = creatorField(s.db.Dialect, f)
		}
	}
	return fields, nil
}

// scanField reads a list field row of fieldColumns.
func scanField(r store.Scanner) (*field.Def, error) {
	return field.ScanDef(r, func(f *field.Def) []any { return []any{&f.Col, &f.System} })
}

func (s *Store) insertField(ctx context.Context, f *field.Def, now time.Time) error {
	st, _ := json.Marshal(f.Settings)
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO list_fields (id, list_id, internal_name, title, field_type, is_required, sort_order,
		settings, col, is_system, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.ListID, f.InternalName, f.Title, f.Type, f.Required, f.SortOrder, string(st), f.Col, f.System, now)
	if err != nil {
		return fmt.Errorf("insert field: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) updateField(ctx context.Context, f *field.Def) error {
	st, _ := json.Marshal(f.Settings)
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE list_fields SET title = ?, is_required = ?, sort_order = ?, settings = ? WHERE id = ?`,
		f.Title, f.Required, f.SortOrder, string(st), f.ID)
	if err != nil {
		return fmt.Errorf("update field: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) deleteField(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM list_fields WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete field: %w", err)
	}
	return nil
}
