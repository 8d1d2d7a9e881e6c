package libraries

import (
	"context"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/store"
)

// NameTaken says whether the folder parentID ("" = the library root) has
// an entry named name (case-insensitive), for callers that must not add a
// version to an existing file by uploading (WOPI PutRelativeFile). View on
// the library is needed.
func (s *Service) NameTaken(ctx context.Context, p *auth.Principal, libraryID, parentID, name string) (bool, error) {
	ctx = asViewer(ctx, p)
	l, err := s.open(ctx, p, libraryID, acl.View)
	if err != nil {
		return false, err
	}
	parentNo, err := s.parseParent(ctx, l, parentID)
	if err != nil {
		return false, err
	}
	_, err = s.st.fileByName(ctx, l.ID, parentNo, nameKey(name))
	if store.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
