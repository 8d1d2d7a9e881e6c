package libraries

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Versions lists the versions of a file, newest first (view on the file).
func (s *Service) Versions(ctx context.Context, p *auth.Principal, libraryID, ref string) ([]FileVersion, error) {
	ctx = asViewer(ctx, p)
	_, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return nil, err
	}
	if f.IsFolder {
		return []FileVersion{}, nil
	}
	vs, err := s.st.versions(ctx, f.GUID)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for i := range vs {
		vs[i].IsCurrent = vs[i].ID == f.VersionID
		vs[i].CreatedByName = s.userName(ctx, vs[i].CreatedBy, names)
	}
	return vs, nil
}

// userName is the display name of a user, remembered in seen ("" when gone).
func (s *Service) userName(ctx context.Context, id string, seen map[string]string) string {
	if id == "" || s.subjects == nil {
		return ""
	}
	if n, ok := seen[id]; ok {
		return n
	}
	n, err := s.subjects.Subject(ctx, "user", id)
	if err != nil {
		n = ""
	}
	seen[id] = n
	return n
}

// version finds one version of a file by id (404 when it is not one of them).
func (s *Service) version(ctx context.Context, guid, versionID string) (*FileVersion, error) {
	if _, ok := store.CanonicalUUID(strings.TrimSpace(versionID)); !ok {
		return nil, fault.Validation("version", "version must be a version id (UUID)")
	}
	vs, err := s.st.versions(ctx, guid)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		if strings.EqualFold(vs[i].ID, strings.TrimSpace(versionID)) {
			return &vs[i], nil
		}
	}
	return nil, fault.NotFound("version")
}

// RestoreVersion makes the bytes of an earlier version the file's new current
// version (edit on the file); field values are left as they are. The bytes
// are copied to a blob of the new version, so purging versions never shares blobs.
func (s *Service) RestoreVersion(ctx context.Context, p *auth.Principal, libraryID, ref, versionID string) (FileOut, error) {
	ctx = asViewer(ctx, p)
	l, f, err := s.openFile(ctx, p, libraryID, ref, acl.Edit)
	if err != nil {
		return FileOut{}, err
	}
	if err := s.checkLock(ctx, p, f.GUID); err != nil {
		return FileOut{}, err
	}
	if _, ok := store.CanonicalUUID(strings.TrimSpace(versionID)); !ok {
		return FileOut{}, fault.Validation("versionId", "versionId must be a UUID")
	}
	vs, err := s.st.versions(ctx, f.GUID)
	if err != nil {
		return FileOut{}, err
	}
	var src *FileVersion
	for i := range vs {
		if strings.EqualFold(vs[i].ID, strings.TrimSpace(versionID)) {
			src = &vs[i]
		}
	}
	if src == nil {
		return FileOut{}, fault.NotFound("version")
	}
	rc, err := s.blobs.Get(ctx, src.blobKey)
	if err != nil {
		return FileOut{}, fmt.Errorf("open version: %w", err)
	}
	v := &FileVersion{ID: uuid.NewString(), MimeType: src.MimeType, CreatedBy: p.UserID, CreatedAt: s.now().UTC()}
	v.blobKey = "libraries/" + l.ID + "/" + uuid.NewString()
	v.Size, err = s.blobs.Put(ctx, v.blobKey, rc)
	rc.Close()
	if err != nil {
		return FileOut{}, fmt.Errorf("copy version: %w", err)
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		cur, err := s.st.file(ctx, l.ID, "guid", f.GUID)
		if store.IsNotFound(err) {
			return fault.NotFound("file")
		}
		if err != nil {
			return err
		}
		f = cur
		f.Size, f.MimeType, f.BlobKey, f.VersionID, f.UpdatedBy, f.UpdatedAt = v.Size, v.MimeType, v.blobKey, v.ID, p.UserID, v.CreatedAt
		if err := s.st.updateFile(ctx, f); err != nil {
			return err
		}
		if err := s.st.insertVersion(ctx, f.GUID, v); err != nil {
			return err
		}
		// the entry drops the text of the replaced version until the job
		// extracts the restored one
		if err := s.queueText(ctx, f); err != nil {
			return err
		}
		if err := s.queuePreview(ctx, f); err != nil {
			return err
		}
		return s.indexFile(ctx, l, f)
	})
	if err != nil {
		s.dropBlob(ctx, v.blobKey)
		return FileOut{}, err
	}
	return s.outOne(ctx, l, f)
}
