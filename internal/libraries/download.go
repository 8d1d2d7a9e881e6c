package libraries

import (
	"context"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
)

// Content is an open download: its metadata and a seekable reader over the
// blob that reads only the ranges asked for (http.ServeContent seeks).
type Content struct {
	Name     string
	MimeType string
	Size     int64
	ETag     string // quoted; changes with every new version
	Modified time.Time
	Body     *blob.RangeReader
}

// Download opens the current bytes of a file, or those of one of its
// versions when versionID is not empty (view on the file).
func (s *Service) Download(ctx context.Context, p *auth.Principal, libraryID, ref, versionID string) (*Content, error) {
	_, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return nil, err
	}
	if f.IsFolder {
		return nil, fault.Validation("fileRef", "a folder has no content to download")
	}
	if versionID != "" {
		v, err := s.version(ctx, f.GUID, versionID)
		if err != nil {
			return nil, err
		}
		return &Content{Name: f.Name, MimeType: v.MimeType, Size: v.Size, ETag: `"` + v.ID + `"`, Modified: v.CreatedAt,
			Body: blob.NewRangeReader(ctx, s.blobs, v.blobKey, v.Size, nil)}, nil
	}
	return &Content{Name: f.Name, MimeType: f.MimeType, Size: f.Size, ETag: `"` + f.VersionID + `"`, Modified: f.UpdatedAt,
		Body: blob.NewRangeReader(ctx, s.blobs, f.BlobKey, f.Size, nil)}, nil
}
