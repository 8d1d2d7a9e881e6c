package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/store"
)

// Store is the SQL of libraries, their fields, files and versions.
type Store struct{ db *store.DB }

type scanner = store.Scanner

const libraryColumns = `id, node_id, slug, title, description, COALESCE(created_by, ''), created_at, updated_at`

func scanLibrary(r scanner) (*Library, error) {
	var l Library
	if err := r.Scan(&l.ID, &l.NodeID, &l.Slug, &l.Title, &l.Description, &l.CreatedBy, &l.CreatedAt, &l.UpdatedAt); err != nil {
		return nil, err
	}
	l.CreatedAt, l.UpdatedAt = l.CreatedAt.UTC(), l.UpdatedAt.UTC()
	return &l, nil
}

// library loads a live library (sql.ErrNoRows when absent or in the bin).
func (s *Store) library(ctx context.Context, id string) (*Library, error) {
	l, err := scanLibrary(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+libraryColumns+" FROM libraries WHERE id = ? AND deleted_at IS NULL", id))
	if err != nil {
		return nil, fmt.Errorf("load library %s: %w", id, err)
	}
	return l, nil
}

// libraryAny loads a library whether or not it is in the recycle bin.
func (s *Store) libraryAny(ctx context.Context, id string) (*Library, error) {
	l, err := scanLibrary(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+libraryColumns+" FROM libraries WHERE id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load library %s: %w", id, err)
	}
	return l, nil
}

func (s *Store) librariesOfNode(ctx context.Context, nodeID string) ([]*Library, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+libraryColumns+" FROM libraries WHERE node_id = ? AND deleted_at IS NULL ORDER BY title, id", nodeID)
	if err != nil {
		return nil, fmt.Errorf("libraries of node: %w", err)
	}
	return store.AppendRows(rows, nil, scanLibrary)
}

func (s *Store) libraryBySlug(ctx context.Context, nodeID, slug string) (string, error) {
	var id string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT id FROM libraries WHERE node_id = ? AND slug = ? AND deleted_at IS NULL", nodeID, slug).Scan(&id)
	return id, err
}

func (s *Store) insertLibrary(ctx context.Context, l *Library) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO libraries (id, node_id, slug, title, description, created_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, l.ID, l.NodeID, l.Slug, l.Title, l.Description, l.CreatedBy, l.CreatedAt, l.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert library: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) updateLibrary(ctx context.Context, l *Library) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE libraries SET slug = ?, title = ?, description = ?, updated_at = ? WHERE id = ?",
		l.Slug, l.Title, l.Description, l.UpdatedAt, l.ID)
	if err != nil {
		return fmt.Errorf("update library: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) setLibraryDeleted(ctx context.Context, id string, at *time.Time) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE libraries SET deleted_at = ? WHERE id = ?", at, id); err != nil {
		return fmt.Errorf("mark library deleted: %w", s.db.Translate(err))
	}
	return nil
}

// deleteLibrary removes a library with its fields, files and versions.
func (s *Store) deleteLibrary(ctx context.Context, id string) error {
	q := s.db.W(ctx)
	for _, stmt := range []string{
		"DELETE FROM library_file_versions WHERE file_guid IN (SELECT guid FROM library_files WHERE library_id = ?)",
		"DELETE FROM library_files WHERE library_id = ?",
		"DELETE FROM library_fields WHERE library_id = ?",
		"DELETE FROM libraries WHERE id = ?",
	} {
		if _, err := q.ExecContext(ctx, stmt, id); err != nil {
			return fmt.Errorf("purge library: %w", err)
		}
	}
	return nil
}

// allocNumber reserves the next file number of a library.
func (s *Store) allocNumber(ctx context.Context, libraryID string) (int64, error) {
	var next int64
	err := s.db.W(ctx).QueryRowContext(ctx, "UPDATE libraries SET next_number = next_number + 1 WHERE id = ? RETURNING next_number", libraryID).Scan(&next)
	if err != nil {
		return 0, fmt.Errorf("allocate file number: %w", s.db.Translate(err))
	}
	return next - 1, nil
}

var fieldColumns = field.Columns("library_id")

func (s *Store) fields(ctx context.Context, libraryID string) ([]*field.Def, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fieldColumns+" FROM library_fields WHERE library_id = ? ORDER BY sort_order, created_at, id", libraryID)
	if err != nil {
		return nil, fmt.Errorf("fields of library: %w", err)
	}
	return store.AppendRows(rows, []*field.Def{}, func(r store.Scanner) (*field.Def, error) { return field.ScanDef(r, nil) })
}

func (s *Store) insertField(ctx context.Context, f *field.Def, now time.Time) error {
	st, _ := json.Marshal(f.Settings)
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO library_fields (id, library_id, internal_name, title, field_type, is_required,
		sort_order, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, f.ListID, f.InternalName, f.Title, f.Type, f.Required, f.SortOrder, string(st), now)
	if err != nil {
		return fmt.Errorf("insert library field: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) updateField(ctx context.Context, f *field.Def) error {
	st, _ := json.Marshal(f.Settings)
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_fields SET title = ?, is_required = ?, sort_order = ?, settings = ? WHERE id = ?",
		f.Title, f.Required, f.SortOrder, string(st), f.ID)
	if err != nil {
		return fmt.Errorf("update library field: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) deleteField(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM library_fields WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete library field: %w", err)
	}
	return nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
