package libraries

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/jobs"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// UseIndex connects the search index (wiring).
func (s *Service) UseIndex(ix search.Index) { s.index = ix }

func libraryDoc(l *Library) search.Doc {
	return search.Doc{Type: search.TypeLibrary, ID: l.ID, NodeID: l.NodeID, ContainerID: l.ID, Slug: l.Slug,
		Title: l.Title, Body: l.Description, UpdatedAt: l.UpdatedAt}
}

// fileDoc is a file or folder as the index sees it: its name as title, its
// custom field values (without lookups: their displays are other files'
// names, hidden from some readers) and the extracted text of its current
// version as body.
func fileDoc(l *lib, f *File, text string) search.Doc {
	var parts []string
	for _, fd := range l.fields {
		if fd.Type == field.Lookup {
			continue
		}
		v := f.value(fd)
		if v == nil {
			continue
		}
		if t := strings.TrimSpace(field.DisplayText(fd, v)); t != "" {
			parts = append(parts, t)
		}
	}
	if text != "" {
		parts = append(parts, text)
	}
	return search.Doc{Type: search.TypeFile, ID: f.GUID, NodeID: l.NodeID, ContainerID: l.ID, Slug: l.Slug,
		Number: f.Number, Title: f.Name, Body: strings.Join(parts, "\n"), UpdatedAt: f.UpdatedAt}
}

// indexFile puts f into the index with the text extracted from its current
// version, if any yet.
func (s *Service) indexFile(ctx context.Context, l *lib, f *File) error {
	if s.index == nil {
		return nil
	}
	text, err := s.st.fileText(ctx, f)
	if err != nil {
		return err
	}
	if err := s.shown(ctx, l, f); err != nil {
		return err
	}
	return s.index.Put(ctx, fileDoc(l, f, text))
}

// indexCreated puts a file or folder created in this transaction into the
// index (no text yet: its extraction is queued). One at the library's root
// hangs directly under the library and inherits, so the index writes it
// without looking up its access chain (search.Doc.Created); one in a folder
// gets the folders' chain from the index's lookup.
func (s *Service) indexCreated(ctx context.Context, l *lib, f *File) error {
	if s.index == nil {
		return nil
	}
	if err := s.shown(ctx, l, f); err != nil {
		return err
	}
	d := fileDoc(l, f, "")
	d.Created = f.ParentNo == 0
	return s.index.Put(ctx, d)
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
	return s.putFiles(ctx, l, files)
}

// putFiles puts files of l into the index with their extracted text.
func (s *Service) putFiles(ctx context.Context, l *lib, files []*File) error {
	texts, err := s.st.fileTexts(ctx, files)
	if err != nil {
		return err
	}
	if err := s.shown(ctx, l, files...); err != nil {
		return err
	}
	for _, f := range files {
		if err := s.index.Put(ctx, fileDoc(l, f, texts[f.GUID])); err != nil {
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

// crawlTextBudget bounds the extracted text one crawler page carries.
const crawlTextBudget = 32 << 20

// SearchLibrariesPage is the crawler source of libraries and their files:
// the cursor is "<library id>/<file number>"; a page holds at most limit
// files (and about crawlTextBudget bytes of extracted text) of one library,
// the library itself on its first page. Files of a format with text whose
// current version was never extracted get an extraction job.
func (s *Service) SearchLibrariesPage(ctx context.Context, after string, limit int) ([]search.Doc, string, error) {
	libID, afterNo := after, int64(-1)
	if i := strings.IndexByte(after, '/'); i >= 0 {
		libID = after[:i]
		if n, err := strconv.ParseInt(after[i+1:], 10, 64); err == nil {
			afterNo = n
		}
	}
	var docs []search.Doc
	if afterNo < 0 {
		id, err := s.st.nextLibrary(ctx, libID)
		if err != nil || id == "" {
			return nil, "", err
		}
		libID, afterNo = id, 0
	}
	l, err := s.load(ctx, libID)
	if fault.Is(err, fault.CodeNotFound) {
		return nil, libID, nil // deleted meanwhile: go on with the next library
	}
	if err != nil {
		return nil, "", err
	}
	if afterNo == 0 {
		docs = append(docs, libraryDoc(l.Library))
	}
	files, err := s.st.liveFilesAfter(ctx, libID, afterNo, max(limit, 1))
	if err != nil {
		return nil, "", err
	}
	texts, err := s.st.fileTexts(ctx, files)
	if err != nil {
		return nil, "", err
	}
	if err := s.shown(ctx, l, files...); err != nil {
		return nil, "", err
	}
	size := 0
	for i, f := range files {
		t, done := texts[f.GUID]
		if !done {
			if err := s.queueText(ctx, f, jobs.RunAt(s.crawlTextSlot())); err != nil {
				return nil, "", err
			}
		}
		docs = append(docs, fileDoc(l, f, t))
		if size += len(t); size > crawlTextBudget && i+1 < len(files) {
			return docs, libID + "/" + strconv.FormatInt(f.Number, 10), nil
		}
	}
	if len(files) == max(limit, 1) {
		return docs, libID + "/" + strconv.FormatInt(files[len(files)-1].Number, 10), nil
	}
	return docs, libID, nil
}

// liveFilesAfter returns up to limit live files and folders of a library
// numbered above after, by number.
func (s *Store) liveFilesAfter(ctx context.Context, libraryID string, after int64, limit int) ([]*File, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+` FROM library_files
		WHERE library_id = ? AND number > ? AND deleted_at IS NULL ORDER BY number LIMIT ?`, libraryID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", libraryID, err)
	}
	return store.AppendRows(rows, nil, scanFileRow)
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

// reindexBatch is how many files one transaction of ReindexSubject re-indexes.
const reindexBatch = 500

// ReindexSubject re-indexes the live files whose field values name the user
// or group id (after its rename: their search text holds its name), in
// transactions of reindexBatch files; it reports how many it re-indexed.
func (s *Service) ReindexSubject(ctx context.Context, id string) (int, error) {
	if s.index == nil {
		return 0, nil
	}
	pattern := "%" + id + "%" // a UUID holds no LIKE wildcard
	libs, err := store.Values[string](ctx, s.db.Q(ctx), "SELECT DISTINCT library_id FROM library_files WHERE deleted_at IS NULL AND field_values LIKE ?", pattern)
	if err != nil {
		return 0, fmt.Errorf("libraries naming %s: %w", id, err)
	}
	n := 0
	for _, libID := range libs {
		last := int64(0)
		for {
			var k int
			err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				l, err := s.load(ctx, libID)
				if err != nil {
					return err
				}
				rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+` FROM library_files WHERE library_id = ? AND number > ?
					AND deleted_at IS NULL AND field_values LIKE ? ORDER BY number LIMIT ?`, libID, last, pattern, reindexBatch)
				if err != nil {
					return fmt.Errorf("files naming %s: %w", id, err)
				}
				files, err := store.AppendRows(rows, nil, scanFileRow)
				if err != nil {
					return fmt.Errorf("files naming %s: %w", id, err)
				}
				if k = len(files); k > 0 {
					last = files[k-1].Number
				}
				return s.putFiles(ctx, l, files)
			})
			if fault.Is(err, fault.CodeNotFound) {
				break // the library went meanwhile
			}
			if err != nil {
				return n, fmt.Errorf("re-index files naming %s in %s: %w", id, libID, err)
			}
			n += k
			if k < reindexBatch {
				break
			}
		}
	}
	return n, nil
}
