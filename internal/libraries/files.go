package libraries

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// ListQuery is the input of Files.
type ListQuery struct {
	ParentID string
	Sort     string // name, size, modified; "-" prefix = descending
	Page     web.PageQuery
}

// Files returns one page of a folder's children the caller can view:
// folders first, then by the sort key (view on the folder, or the library at the root).
func (s *Service) Files(ctx context.Context, p *auth.Principal, libraryID string, q ListQuery) ([]FileOut, web.PageMeta, error) {
	ctx = asViewer(ctx, p)
	l, err := s.open(ctx, p, libraryID, acl.View)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	order := strings.TrimSpace(q.Sort)
	if order == "" {
		order = "name"
	}
	if _, ok := sortOrders[order]; !ok {
		return nil, web.PageMeta{}, fault.Validation("sort", "sort must be name, size or modified, optionally prefixed with - for descending")
	}
	parentNo, err := s.parseParent(ctx, l, q.ParentID)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	parent, _, err := s.folderRef(ctx, l, parentNo)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	if err := s.need(ctx, p, parent, acl.View); err != nil {
		return nil, web.PageMeta{}, err
	}
	vis, err := s.acl.Visibility(ctx, p, acl.File, parent, acl.Children)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	ls := listing{libraryID: l.ID, parentNo: parentNo, order: order, offset: q.Page.Offset(), limit: q.Page.Limit, total: -1}
	open := vis.All() // the total is the same for every such caller
	if !open {
		if ls.visible, err = vis.Condition(acl.Column{Name: "guid"}); err != nil {
			return nil, web.PageMeta{}, err
		}
	}
	var gen uint64
	if open {
		var ok bool
		if ls.total, ok, gen = s.counts.get(l.ID, parentNo); !ok {
			ls.total = -1
		}
	}
	files, total, err := s.st.children(ctx, ls)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	if open && ls.total < 0 {
		s.counts.put(l.ID, parentNo, total, gen)
	}
	out, err := s.outs(ctx, l, files...)
	if err != nil {
		return nil, web.PageMeta{}, err
	}
	return out, web.NewPageMeta(q.Page, total), nil
}

// File returns one file or folder record (view on it).
func (s *Service) File(ctx context.Context, p *auth.Principal, libraryID, ref string) (FileOut, error) {
	ctx = asViewer(ctx, p)
	l, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return FileOut{}, err
	}
	return s.outOne(ctx, l, f)
}

const maxName = 255

// checkName validates a file or folder name: 1-255 characters, no path
// separators, no control characters, not "." or "..".
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", fault.Validation("name", "name is required")
	case utf8.RuneCountInString(name) > maxName:
		return "", fault.Validation("name", "name must have at most %d characters", maxName)
	case name == "." || name == "..":
		return "", fault.Validation("name", "name cannot be . or ..")
	case strings.ContainsAny(name, `/\`):
		return "", fault.Validation("name", "name cannot contain / or \\")
	}
	if strings.ContainsFunc(name, web.NameControl) {
		return "", fault.Validation("name", "name cannot contain control characters or bidirectional override marks")
	}
	return name, nil
}

func nameTaken(name string) error {
	return fault.Conflict("the folder already has an entry named %q", name).With("field", "name")
}

// NewFolder is the input of CreateFolder.
type NewFolder struct {
	Name     string
	ParentID string
}

// CreateFolder adds a folder (add on the library or the parent folder) and
// emits file.created like an upload does. Required custom fields are not
// checked (SPEC.md, Libraries).
func (s *Service) CreateFolder(ctx context.Context, p *auth.Principal, libraryID string, in NewFolder) (FileOut, error) {
	ctx = asViewer(ctx, p)
	l, err := s.loadParam(ctx, libraryID)
	if err != nil {
		return FileOut{}, err
	}
	name, err := checkName(in.Name)
	if err != nil {
		return FileOut{}, err
	}
	parentNo, err := s.parseParent(ctx, l, in.ParentID)
	if err != nil {
		return FileOut{}, err
	}
	parent, _, err := s.folderRef(ctx, l, parentNo)
	if err != nil {
		return FileOut{}, err
	}
	if err := s.need(ctx, p, parent, acl.Add); err != nil {
		return FileOut{}, err
	}
	now := s.now().UTC()
	f := &File{GUID: uuid.NewString(), LibraryID: l.ID, ParentNo: parentNo, Name: name, IsFolder: true, Inherits: true,
		Values: map[string]json.RawMessage{}, CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.filesChanged(ctx)
		if _, err := s.st.fileByName(ctx, l.ID, parentNo, nameKey(name)); err == nil {
			return nameTaken(name)
		} else if !store.IsNotFound(err) {
			return err
		}
		if f.Number, err = s.st.allocNumber(ctx, l.ID); err != nil {
			return err
		}
		if err := s.st.insertFile(ctx, f); err != nil {
			if store.IsUnique(err) {
				return nameTaken(name)
			}
			return err
		}
		if err := s.acl.Register(ctx, fileRef(f.GUID), &parent); err != nil {
			return err
		}
		if err := s.emitFile(ctx, "file.created", l, f, p); err != nil {
			return err
		}
		return s.indexCreated(ctx, l, f)
	})
	if err != nil {
		return FileOut{}, err
	}
	return s.outOne(ctx, l, f)
}

// FilePatch is the input of UpdateFile; nil keys stay.
type FilePatch struct {
	Name        *string
	ParentID    *string // "" or "0" = the library root
	FieldValues map[string]json.RawMessage
}

// UpdateFile renames, moves or changes field values (edit on the file; a move
// also needs add on the destination folder and, for a folder, edit on every
// isolated file or folder below it, since they move with it). fieldValues merge with the stored
// values and then every required field is checked; name and parentId alone check nothing.
// A folder cannot move into itself or below itself, and a name is unique per
// folder (case-insensitive): both answer 409.
func (s *Service) UpdateFile(ctx context.Context, p *auth.Principal, libraryID, ref string, in FilePatch) (FileOut, error) {
	ctx = asViewer(ctx, p)
	l, f, err := s.openFile(ctx, p, libraryID, ref, acl.Edit)
	if err != nil {
		return FileOut{}, err
	}
	if err := s.checkLock(ctx, p, f.GUID); err != nil {
		return FileOut{}, err
	}
	var dest *acl.Ref
	if in.Name != nil {
		if f.Name, err = checkName(*in.Name); err != nil {
			return FileOut{}, err
		}
	}
	if in.ParentID != nil {
		parentNo, err := s.parseParent(ctx, l, *in.ParentID)
		if err != nil {
			return FileOut{}, err
		}
		if parentNo != f.ParentNo {
			if f.IsFolder && parentNo != 0 {
				up, err := s.st.ancestors(ctx, l.ID, parentNo)
				if err != nil {
					return FileOut{}, err
				}
				for _, n := range up {
					if n == f.Number {
						return FileOut{}, fault.Conflict("a folder cannot be moved into itself or one of its subfolders").With("field", "parentId")
					}
				}
			}
			ref, _, err := s.folderRef(ctx, l, parentNo)
			if err != nil {
				return FileOut{}, err
			}
			if err := s.need(ctx, p, ref, acl.Add); err != nil {
				return FileOut{}, err
			}
			if f.IsFolder {
				tree, err := s.st.subtree(ctx, l.ID, f.Number)
				if err != nil {
					return FileOut{}, err
				}
				if err := s.guardSubtree(ctx, p, f, tree, acl.Edit); err != nil {
					return FileOut{}, err
				}
			}
			dest = &ref
			f.ParentNo = parentNo
		}
	}
	if in.FieldValues != nil {
		if err := s.applyValues(ctx, p, l, f, in.FieldValues, true); err != nil {
			return FileOut{}, err
		}
	}
	f.UpdatedBy, f.UpdatedAt = p.UserID, s.now().UTC()
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.filesChanged(ctx)
		if other, err := s.st.fileByName(ctx, l.ID, f.ParentNo, nameKey(f.Name)); err == nil && other.GUID != f.GUID {
			return nameTaken(f.Name)
		} else if err != nil && !store.IsNotFound(err) {
			return err
		}
		if err := s.st.updateFile(ctx, f); err != nil {
			if store.IsUnique(err) {
				return nameTaken(f.Name)
			}
			return err
		}
		if dest != nil {
			if err := s.acl.Move(ctx, fileRef(f.GUID), dest); err != nil {
				return err
			}
		}
		if err := s.emitFile(ctx, "file.updated", l, f, p); err != nil {
			return err
		}
		return s.indexFile(ctx, l, f)
	})
	if err != nil {
		return FileOut{}, err
	}
	return s.outOne(ctx, l, f)
}
