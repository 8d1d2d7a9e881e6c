package libraries

import (
	"context"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// FilePermissionSettings is the inheritance state of a file or folder.
type FilePermissionSettings struct {
	InheritsPermissions bool   `json:"inheritsPermissions"`
	ParentLabel         string `json:"parentLabel" doc:"name of the folder (or library) rights are inherited from"`
}

func (s *Service) openForPermissions(ctx context.Context, p *auth.Principal, libraryID, ref string) (*lib, *File, error) {
	l, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return nil, nil, err
	}
	if !p.IsAdmin {
		return nil, nil, fault.Forbidden("only administrators manage the permission settings of a file")
	}
	return l, f, nil
}

func (s *Service) settingsOf(ctx context.Context, l *lib, f *File) (FilePermissionSettings, error) {
	label := l.Title
	if f.ParentNo != 0 {
		parent, err := s.st.file(ctx, l.ID, "number", f.ParentNo)
		if err != nil {
			return FilePermissionSettings{}, err
		}
		label = parent.Name
	}
	return FilePermissionSettings{InheritsPermissions: f.Inherits, ParentLabel: label}, nil
}

// FilePermissionSettings returns whether a file or folder inherits (administrators).
func (s *Service) PermissionSettings(ctx context.Context, p *auth.Principal, libraryID, ref string) (FilePermissionSettings, error) {
	l, f, err := s.openForPermissions(ctx, p, libraryID, ref)
	if err != nil {
		return FilePermissionSettings{}, err
	}
	return s.settingsOf(ctx, l, f)
}

// SetInheritance breaks (copying the parent's effective rights as explicit
// records) or restores (dropping the explicit records) inheritance of a file
// or folder (administrators). An isolated folder is a boundary for everything below it.
func (s *Service) SetInheritance(ctx context.Context, p *auth.Principal, libraryID, ref string, inherit bool) (FilePermissionSettings, error) {
	l, f, err := s.openForPermissions(ctx, p, libraryID, ref)
	if err != nil {
		return FilePermissionSettings{}, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		// the file's row first, as every save that re-indexes the file
		// locks it before the index locks the file's access-control object
		if err := s.st.setInherits(ctx, f.GUID, inherit); err != nil {
			return err
		}
		return s.acl.SetInherits(ctx, fileRef(f.GUID), inherit)
	})
	if err != nil {
		return FilePermissionSettings{}, err
	}
	f.Inherits = inherit
	return s.settingsOf(ctx, l, f)
}
