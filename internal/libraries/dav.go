package libraries

import (
	"context"
	"fmt"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Entry is a file or folder as the WebDAV tree (internal/dav) sees it: the
// row's plain metadata, without field values.
type Entry struct {
	GUID      string
	Number    int64
	ParentNo  int64
	Name      string
	IsFolder  bool
	Size      int64
	MimeType  string
	VersionID string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func entryOf(f *File) Entry {
	return Entry{GUID: f.GUID, Number: f.Number, ParentNo: f.ParentNo, Name: f.Name, IsFolder: f.IsFolder, Size: f.Size,
		MimeType: f.MimeType, VersionID: f.VersionID, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}

// NodeLibraries returns the libraries of a node the caller can view
// (Library rows only, no fields; view on the node).
func (s *Service) NodeLibraries(ctx context.Context, p *auth.Principal, nodeID string) ([]*Library, error) {
	id, err := s.openNode(ctx, p, nodeID, acl.View)
	if err != nil {
		return nil, err
	}
	ls, err := s.st.librariesOfNode(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]*Library, 0, len(ls))
	for _, l := range ls {
		lvl, err := s.acl.Level(ctx, p, libRef(l.ID))
		if err != nil {
			return nil, err
		}
		if lvl >= acl.View {
			out = append(out, l)
		}
	}
	return out, nil
}

// Level is the caller's level on a library (parentNo 0 / guid "") or on a file.
func (s *Service) Level(ctx context.Context, p *auth.Principal, libraryID, guid string) (acl.Level, error) {
	if guid == "" {
		return s.acl.Level(ctx, p, libRef(libraryID))
	}
	return s.acl.Level(ctx, p, fileRef(guid))
}

// Children returns every child of a folder (parentNo 0: the library root)
// the caller can view, by name, in one query (view on the folder).
func (s *Service) Children(ctx context.Context, p *auth.Principal, libraryID string, parentNo int64) ([]Entry, error) {
	l, err := s.open(ctx, p, libraryID, acl.View)
	if err != nil {
		return nil, err
	}
	parent, _, err := s.folderRef(ctx, l, parentNo)
	if err != nil {
		return nil, err
	}
	if err := s.need(ctx, p, parent, acl.View); err != nil {
		return nil, err
	}
	vis, err := s.acl.Visibility(ctx, p, acl.File, parent, acl.Children)
	if err != nil {
		return nil, err
	}
	where := "library_id = ? AND parent_no = ? AND deleted_at IS NULL"
	args := []any{l.ID, parentNo}
	if !vis.All() {
		c, err := vis.Condition(acl.Column{Name: "guid"})
		if err != nil {
			return nil, err
		}
		if c.SQL == "1 = 0" {
			return []Entry{}, nil
		}
		if c.SQL != "" {
			where += " AND " + c.SQL
			args = append(args, c.Args...)
		}
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE "+where+" ORDER BY name_key, number", args...)
	if err != nil {
		return nil, fmt.Errorf("list folder: %w", err)
	}
	files, err := store.AppendRows(rows, []*File{}, scanFileRow)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(files))
	for i, f := range files {
		out[i] = entryOf(f)
	}
	return out, nil
}

// Child returns the child of a folder by name (case-insensitive), 404 when
// it is missing or the caller cannot view it.
func (s *Service) Child(ctx context.Context, p *auth.Principal, libraryID string, parentNo int64, name string) (Entry, error) {
	f, err := s.st.fileByName(ctx, libraryID, parentNo, nameKey(name))
	if store.IsNotFound(err) {
		return Entry{}, fault.NotFound("file")
	}
	if err != nil {
		return Entry{}, err
	}
	lvl, err := s.acl.Level(ctx, p, fileRef(f.GUID))
	if err != nil {
		return Entry{}, err
	}
	if lvl < acl.View {
		return Entry{}, fault.NotFound("file")
	}
	return entryOf(f), nil
}
