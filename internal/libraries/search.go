package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"coreportal/internal/field"
	"coreportal/internal/search"
)

// UseIndex connects the search index (wiring).
func (s *Service) UseIndex(ix search.Index) { s.index = ix }

func libraryDoc(l *Library) search.Doc {
	return search.Doc{Type: search.TypeLibrary, ID: l.ID, NodeID: l.NodeID, ContainerID: l.ID, Slug: l.Slug,
		Title: l.Title, Body: l.Description, UpdatedAt: l.UpdatedAt}
}

// fileDoc is a file or folder as the index sees it: its name as title, its
// custom field values as body.
func fileDoc(l *lib, f *File) search.Doc {
	var parts []string
	for _, fd := range l.fields {
		raw, ok := f.Values[fd.ID]
		if !ok || len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			continue
		}
		if t := strings.TrimSpace(field.DisplayText(fd, v)); t != "" {
			parts = append(parts, t)
		}
	}
	return search.Doc{Type: search.TypeFile, ID: f.GUID, NodeID: l.NodeID, ContainerID: l.ID, Slug: l.Slug,
		Number: f.Number, Title: f.Name, Body: strings.Join(parts, "\n"), UpdatedAt: f.UpdatedAt}
}

func (s *Service) indexFile(ctx context.Context, l *lib, f *File) error {
	if s.index == nil {
		return nil
	}
	return s.index.Put(ctx, fileDoc(l, f))
}

func (s *Service) indexLibrary(ctx context.Context, l *Library) error {
	if s.index == nil {
		return nil
	}
	return s.index.Put(ctx, libraryDoc(l))
}

// reindexFiles puts the library and its live files into the index (restores).
func (s *Service) reindexFiles(ctx context.Context, libraryID string) error {
	if s.index == nil {
		return nil
	}
	l, err := s.load(ctx, libraryID)
	if err != nil {
		return err
	}
	if err := s.index.Put(ctx, libraryDoc(l.Library)); err != nil {
		return err
	}
	files, err := s.st.liveFiles(ctx, libraryID)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := s.index.Put(ctx, fileDoc(l, f)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) unindex(ctx context.Context, ids ...string) error {
	if s.index == nil {
		return nil
	}
	return s.index.Remove(ctx, ids...)
}

// SearchLibrariesPage is the crawler source of libraries and their files,
// one library per page, cursor = library id.
func (s *Service) SearchLibrariesPage(ctx context.Context, after string, _ int) ([]search.Doc, string, error) {
	id, err := s.st.nextLibrary(ctx, after)
	if err != nil || id == "" {
		return nil, "", err
	}
	l, err := s.load(ctx, id)
	if err != nil {
		return nil, "", err
	}
	docs := []search.Doc{libraryDoc(l.Library)}
	files, err := s.st.liveFiles(ctx, id)
	if err != nil {
		return nil, "", err
	}
	for _, f := range files {
		docs = append(docs, fileDoc(l, f))
	}
	return docs, id, nil
}

func (s *Store) liveFiles(ctx context.Context, libraryID string) ([]*File, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE library_id = ? AND deleted_at IS NULL ORDER BY number", libraryID)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", libraryID, err)
	}
	defer rows.Close()
	var out []*File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func (s *Store) nextLibrary(ctx context.Context, after string) (string, error) {
	q := "SELECT id FROM libraries WHERE deleted_at IS NULL"
	args := []any{}
	if after != "" {
		q += " AND id > ?"
		args = append(args, after)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, q+" ORDER BY id LIMIT 1", args...)
	if err != nil {
		return "", fmt.Errorf("next library: %w", err)
	}
	defer rows.Close()
	id := ""
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("next library: %w", err)
		}
	}
	return id, rows.Err()
}
