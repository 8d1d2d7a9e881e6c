package libraries

import (
	"context"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// An isolated file or folder is a boundary (SPEC.md, Item inheritance flag):
// the rights of the folder or library above it do not reach it. An operation
// on a folder or library that carries its whole content along (delete, move)
// therefore needs the right on every isolated descendant too; descendants that
// inherit have at least the level of the folder itself, so only isolated ones
// are checked. Administrators have every right.

// guardIsolated answers 403 when p lacks min on one of guids. The message
// names no file, so that nothing hidden is revealed.
func (s *Service) guardIsolated(ctx context.Context, p *auth.Principal, guids []string, min acl.Level, what string) error {
	if p.IsAdmin {
		return nil
	}
	for _, g := range guids {
		lvl, err := s.acl.Level(ctx, p, fileRef(g))
		if err != nil {
			return err
		}
		if lvl < min {
			return fault.Forbidden("%s contains an isolated file or folder on which you lack the %s right", what, min)
		}
	}
	return nil
}

// guardSubtree checks min on every isolated entry strictly below the root of tree.
func (s *Service) guardSubtree(ctx context.Context, p *auth.Principal, root *File, tree []*File, min acl.Level) error {
	var guids []string
	for _, t := range tree {
		if t.GUID != root.GUID && !t.Inherits {
			guids = append(guids, t.GUID)
		}
	}
	return s.guardIsolated(ctx, p, guids, min, "this folder")
}

// guardLibrary checks min on every isolated file and folder of a library.
func (s *Service) guardLibrary(ctx context.Context, p *auth.Principal, libraryID string, min acl.Level) error {
	if p.IsAdmin {
		return nil
	}
	guids, err := s.st.isolatedGUIDs(ctx, libraryID)
	if err != nil {
		return err
	}
	return s.guardIsolated(ctx, p, guids, min, "this library")
}
