package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/store"
)

const fileColumns = `guid, library_id, number, parent_no, name, is_folder, file_size, mime_type, blob_key, version_id, field_values,
	inherits_permissions, COALESCE(created_by, ''), COALESCE(updated_by, ''), created_at, updated_at`

// scanFileRow reads a file row of fileColumns alone.
func scanFileRow(r scanner) (*File, error) { return scanFile(r) }

func scanFile(r scanner, extra ...any) (*File, error) {
	var f File
	var values string
	dest := append([]any{&f.GUID, &f.LibraryID, &f.Number, &f.ParentNo, &f.Name, &f.IsFolder, &f.Size, &f.MimeType, &f.BlobKey,
		&f.VersionID, &values, &f.Inherits, &f.CreatedBy, &f.UpdatedBy, &f.CreatedAt, &f.UpdatedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
	f.Values = map[string]json.RawMessage{}
	_ = json.Unmarshal([]byte(values), &f.Values)
	return &f, nil
}

// file loads a live file or folder of a library by a condition on one column.
func (s *Store) file(ctx context.Context, libraryID, col string, arg any) (*File, error) {
	if col != "number" && col != "guid" {
		return nil, fmt.Errorf("file: bad column %q", col)
	}
	f, err := scanFile(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE library_id = ? AND "+col+
		" = ? AND deleted_at IS NULL", libraryID, arg))
	if err != nil {
		return nil, fmt.Errorf("load file: %w", err)
	}
	return f, nil
}

// fileAny loads a file by guid whether or not it is in the recycle bin.
func (s *Store) fileAny(ctx context.Context, guid string) (*File, error) {
	f, err := scanFile(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE guid = ?", guid))
	if err != nil {
		return nil, fmt.Errorf("load file: %w", err)
	}
	return f, nil
}

// fileLocked is fileAny that, in a transaction on PostgreSQL, holds the
// file's row until the end of it: writers of the same file wait for each
// other, so the later one reads what the earlier one committed.
func (s *Store) fileLocked(ctx context.Context, guid string) (*File, error) {
	f, err := scanFile(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE guid = ?"+s.db.Dialect.ForUpdate(), guid))
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	return f, nil
}

func (s *Store) fileByName(ctx context.Context, libraryID string, parentNo int64, nameKey string) (*File, error) {
	f, err := scanFile(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+fileColumns+
		" FROM library_files WHERE library_id = ? AND parent_no = ? AND name_key = ? AND deleted_at IS NULL", libraryID, parentNo, nameKey))
	if err != nil {
		return nil, fmt.Errorf("load file by name: %w", err)
	}
	return f, nil
}

// listing is one page of a folder's children.
type listing struct {
	libraryID string
	parentNo  int64
	visible   acl.Condition // the children the caller can view; empty: all
	order     string        // a value of sortOrders
	total     int           // known total, or -1 to count
	offset    int
	limit     int
}

// sortOrders are the ORDER BY clauses of the folder listing: folders first,
// then the chosen key, the number as the tie-break (matching the indexes).
var sortOrders = map[string]string{
	"name":      "is_folder DESC, name_key ASC, number ASC",
	"-name":     "is_folder DESC, name_key DESC, number DESC",
	"size":      "is_folder DESC, file_size ASC, number ASC",
	"-size":     "is_folder DESC, file_size DESC, number DESC",
	"modified":  "is_folder DESC, updated_at ASC, number ASC",
	"-modified": "is_folder DESC, updated_at DESC, number DESC",
}

func idArgs(ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func (s *Store) children(ctx context.Context, l listing) ([]*File, int, error) {
	where := "library_id = ? AND parent_no = ? AND deleted_at IS NULL"
	args := []any{l.libraryID, l.parentNo}
	if l.visible.SQL == "1 = 0" {
		return []*File{}, 0, nil
	}
	if l.visible.SQL != "" {
		where += " AND " + l.visible.SQL
		args = append(args, l.visible.Args...)
	}
	order, ok := sortOrders[l.order]
	if !ok {
		return nil, 0, fmt.Errorf("children: bad order %q", l.order)
	}
	total := l.total
	if total < 0 {
		if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM library_files WHERE "+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count files: %w", err)
		}
	}
	// the page's numbers come from the sort index alone (it covers them); only
	// the 50 rows of the page are then read from the table
	q := "SELECT " + fileColumns + " FROM library_files WHERE library_id = ? AND number IN (SELECT number FROM library_files WHERE " +
		where + " ORDER BY " + order + " LIMIT ? OFFSET ?) ORDER BY " + order
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, append(append([]any{l.libraryID}, args...), l.limit, l.offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list files: %w", err)
	}
	out, err := store.AppendRows(rows, []*File{}, scanFileRow)
	return out, total, err
}

func encodeValues(v map[string]json.RawMessage) string {
	if len(v) == 0 {
		return "{}"
	}
	j, _ := json.Marshal(v)
	return string(j)
}

func (s *Store) insertFile(ctx context.Context, f *File) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO library_files (guid, library_id, number, parent_no, name, name_key, is_folder,
		file_size, mime_type, blob_key, version_id, field_values, inherits_permissions, created_by, updated_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.GUID, f.LibraryID, f.Number, f.ParentNo, f.Name, nameKey(f.Name), f.IsFolder, f.Size, f.MimeType, f.BlobKey, f.VersionID,
		encodeValues(f.Values), f.Inherits, nullable(f.CreatedBy), nullable(f.UpdatedBy), f.CreatedAt, f.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert file: %w", s.db.Translate(err))
	}
	return nil
}

// updateFile writes every mutable column of a file row.
func (s *Store) updateFile(ctx context.Context, f *File) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE library_files SET parent_no = ?, name = ?, name_key = ?, file_size = ?, mime_type = ?,
		blob_key = ?, version_id = ?, field_values = ?, updated_by = ?, updated_at = ? WHERE guid = ?`,
		f.ParentNo, f.Name, nameKey(f.Name), f.Size, f.MimeType, f.BlobKey, f.VersionID, encodeValues(f.Values), nullable(f.UpdatedBy),
		f.UpdatedAt, f.GUID)
	if err != nil {
		return fmt.Errorf("update file: %w", s.db.Translate(err))
	}
	return nil
}

func (s *Store) setInherits(ctx context.Context, guid string, inherit bool) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_files SET inherits_permissions = ? WHERE guid = ?", inherit, guid); err != nil {
		return fmt.Errorf("set file inheritance: %w", err)
	}
	return nil
}

// ancestors returns the numbers of the folders above parentNo, nearest first,
// parentNo included (stops at the root).
func (s *Store) ancestors(ctx context.Context, libraryID string, parentNo int64) ([]int64, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE up(number, parent_no, depth) AS (
			SELECT number, parent_no, 0 FROM library_files WHERE library_id = ? AND number = ?
			UNION ALL
			SELECT f.number, f.parent_no, up.depth + 1 FROM library_files f JOIN up ON f.library_id = ? AND f.number = up.parent_no
			WHERE up.parent_no <> 0 AND up.depth < 1000)
		SELECT number FROM up ORDER BY depth`, libraryID, parentNo, libraryID)
	if err != nil {
		return nil, fmt.Errorf("folder ancestors: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// subtree returns the live file or folder number and everything below it.
func (s *Store) subtree(ctx context.Context, libraryID string, number int64) ([]*File, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE down(number) AS (
			SELECT number FROM library_files WHERE library_id = ? AND number = ? AND deleted_at IS NULL
			UNION ALL
			SELECT f.number FROM library_files f JOIN down ON f.library_id = ? AND f.parent_no = down.number AND f.deleted_at IS NULL)
		SELECT `+fileColumns+` FROM library_files WHERE library_id = ? AND number IN (SELECT number FROM down) ORDER BY number`,
		libraryID, number, libraryID, libraryID)
	if err != nil {
		return nil, fmt.Errorf("folder subtree: %w", err)
	}
	return store.AppendRows(rows, nil, scanFileRow)
}

// trash marks files as taken by a recycle-bin entry.
func (s *Store) trash(ctx context.Context, trashID string, at time.Time, guids []string) error {
	for len(guids) > 0 {
		n := min(len(guids), 500)
		args := append([]any{at, trashID}, idArgs(guids[:n])...)
		if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_files SET deleted_at = ?, trash_id = ? WHERE guid IN ("+
			store.Placeholders(n)+")", args...); err != nil {
			return fmt.Errorf("trash files: %w", err)
		}
		guids = guids[n:]
	}
	return nil
}

func (s *Store) trashed(ctx context.Context, trashID string) ([]*File, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE trash_id = ? ORDER BY number", trashID)
	if err != nil {
		return nil, fmt.Errorf("trashed files: %w", err)
	}
	return store.AppendRows(rows, nil, scanFileRow)
}

func (s *Store) untrash(ctx context.Context, trashID string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_files SET deleted_at = NULL, trash_id = NULL WHERE trash_id = ?", trashID)
	if err != nil {
		return fmt.Errorf("restore files: %w", s.db.Translate(err))
	}
	return nil
}

// blobKeys returns the blob keys of the versions of files matching where.
func (s *Store) blobKeys(ctx context.Context, where string, args ...any) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT v.blob_key FROM library_file_versions v JOIN library_files f ON f.guid = v.file_guid
		WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("blob keys: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Store) deleteTrashed(ctx context.Context, trashID string) error {
	for _, q := range []string{
		"DELETE FROM library_file_versions WHERE file_guid IN (SELECT guid FROM library_files WHERE trash_id = ?)",
		"DELETE FROM library_files WHERE trash_id = ?",
	} {
		if _, err := s.db.W(ctx).ExecContext(ctx, q, trashID); err != nil {
			return fmt.Errorf("purge files: %w", err)
		}
	}
	return nil
}

func (s *Store) versions(ctx context.Context, guid string) ([]FileVersion, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, version_number, file_size, mime_type, blob_key, COALESCE(created_by, ''), created_at
		FROM library_file_versions WHERE file_guid = ? ORDER BY version_number DESC`, guid)
	if err != nil {
		return nil, fmt.Errorf("file versions: %w", err)
	}
	defer rows.Close()
	out := []FileVersion{}
	for rows.Next() {
		var v FileVersion
		if err := rows.Scan(&v.ID, &v.Number, &v.Size, &v.MimeType, &v.blobKey, &v.CreatedBy, &v.CreatedAt); err != nil {
			return nil, err
		}
		v.CreatedAt = v.CreatedAt.UTC()
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *Store) insertVersion(ctx context.Context, guid string, v *FileVersion) error {
	err := s.db.W(ctx).QueryRowContext(ctx, `INSERT INTO library_file_versions (id, file_guid, version_number, file_size, mime_type, blob_key,
		created_by, created_at) VALUES (?, ?, (SELECT COALESCE(max(version_number), 0) + 1 FROM library_file_versions WHERE file_guid = ?),
		?, ?, ?, ?, ?) RETURNING version_number`,
		v.ID, guid, guid, v.Size, v.MimeType, v.blobKey, nullable(v.CreatedBy), v.CreatedAt).Scan(&v.Number)
	if err != nil {
		return fmt.Errorf("insert file version: %w", s.db.Translate(err))
	}
	return nil
}

// nameKey is the case-folded name that uniqueness within a folder compares.
func nameKey(name string) string { return strings.ToLower(name) }

// isolatedGUIDs returns the live isolated (inherits_permissions = false)
// files and folders of a library.
func (s *Store) isolatedGUIDs(ctx context.Context, libraryID string) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT guid FROM library_files
		WHERE library_id = ? AND inherits_permissions = ? AND deleted_at IS NULL`, libraryID, false)
	if err != nil {
		return nil, fmt.Errorf("isolated files: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("isolated files: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
