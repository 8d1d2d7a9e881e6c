package libraries

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// previewRow is one row of file_previews.
type previewRow struct {
	VersionID string
	PNG, PDF  []byte
	Error     string
	MadeAt    time.Time
}

// version reads one version of a file (sql.ErrNoRows when absent).
func (s *Store) version(ctx context.Context, guid, versionID string) (*FileVersion, error) {
	var v FileVersion
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT id, version_number, file_size, mime_type, blob_key, COALESCE(created_by, ''), created_at
		FROM library_file_versions WHERE file_guid = ? AND id = ?`, guid, versionID).
		Scan(&v.ID, &v.Number, &v.Size, &v.MimeType, &v.blobKey, &v.CreatedBy, &v.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("file version %s: %w", versionID, err)
	}
	v.CreatedAt = v.CreatedAt.UTC()
	return &v, nil
}

func (s *Store) hasPreviewRow(ctx context.Context, versionID string) (bool, error) {
	var n int
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM file_previews WHERE version_id = ?", versionID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("preview of %s: %w", versionID, err)
	}
	return n > 0, nil
}

// savePreview records a preview (or the reason there is none); a version
// purged meanwhile answers sql.ErrNoRows.
func (s *Store) savePreview(ctx context.Context, r previewRow) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO file_previews (version_id, png, pdf, error, made_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (version_id) DO NOTHING`, r.VersionID, nilIfEmpty(r.PNG), nilIfEmpty(r.PDF), r.Error, r.MadeAt)
	if err == nil {
		return nil
	}
	var n int
	if cerr := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM library_file_versions WHERE id = ?", r.VersionID).Scan(&n); cerr == nil && n == 0 {
		return sql.ErrNoRows
	}
	return fmt.Errorf("save preview of %s: %w", r.VersionID, err)
}

func nilIfEmpty(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// previewBytes reads the PNG or PDF of a version's preview.
func (s *Store) previewBytes(ctx context.Context, versionID, format string) ([]byte, time.Time, error) {
	col := "png"
	if format == "pdf" {
		col = "pdf"
	}
	var b []byte
	var at time.Time
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+col+", made_at FROM file_previews WHERE version_id = ?", versionID).Scan(&b, &at)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("preview of %s: %w", versionID, err)
	}
	return b, at.UTC(), nil
}

// previewFlags says, per version id, whether a PNG and a PDF preview exist.
func (s *Store) previewFlags(ctx context.Context, versionIDs []string) (map[string][2]bool, error) {
	out := map[string][2]bool{}
	for len(versionIDs) > 0 {
		n := min(len(versionIDs), 500)
		rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT version_id, png IS NOT NULL, pdf IS NOT NULL FROM file_previews
			WHERE version_id IN (`+store.Placeholders(n)+`)`, idArgs(versionIDs[:n])...)
		if err != nil {
			return nil, fmt.Errorf("preview flags: %w", err)
		}
		for rows.Next() {
			var id string
			var png, pdf bool
			if err := rows.Scan(&id, &png, &pdf); err != nil {
				rows.Close()
				return nil, fmt.Errorf("preview flags: %w", err)
			}
			out[id] = [2]bool{png, pdf}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("preview flags: %w", err)
		}
		versionIDs = versionIDs[n:]
	}
	return out, nil
}

// previewFlags says, per current version id of files, whether a PNG and a
// PDF preview exist (none when previews are not wired).
func (s *Service) previewFlags(ctx context.Context, files []*File) (map[string][2]bool, error) {
	if s.previews == nil {
		return nil, nil
	}
	ids := make([]string, 0, len(files))
	for _, f := range files {
		if !f.IsFolder && f.VersionID != "" {
			ids = append(ids, f.VersionID)
		}
	}
	return s.st.previewFlags(ctx, ids)
}
