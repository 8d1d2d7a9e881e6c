package libraries

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	Body     *RangeReader
}

// Download opens the current bytes of a file (view on the file).
func (s *Service) Download(ctx context.Context, p *auth.Principal, libraryID, ref string) (*Content, error) {
	_, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return nil, err
	}
	if f.IsFolder {
		return nil, fault.Validation("fileRef", "a folder has no content to download")
	}
	return &Content{Name: f.Name, MimeType: f.MimeType, Size: f.Size, ETag: `"` + f.VersionID + `"`, Modified: f.UpdatedAt,
		Body: &RangeReader{ctx: ctx, blobs: s.blobs, key: f.BlobKey, size: f.Size}}, nil
}

// RangeReader is an io.ReadSeekCloser over a blob: each Read after a Seek
// opens the blob from that offset to the end (blob.Store.GetRange), so a
// range request never streams the bytes before it.
type RangeReader struct {
	ctx   context.Context
	blobs blob.Store
	key   string
	size  int64
	off   int64
	rc    io.ReadCloser
}

func (r *RangeReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.rc == nil {
		rc, err := r.blobs.GetRange(r.ctx, r.key, r.off, -1)
		if errors.Is(err, blob.ErrNotFound) {
			return 0, fmt.Errorf("file content is missing from the blob store: %w", err)
		}
		if err != nil {
			return 0, err
		}
		r.rc = rc
	}
	n, err := r.rc.Read(p)
	r.off += int64(n)
	return n, err
}

// Seek moves the offset; the open blob reader, if any, is closed.
func (r *RangeReader) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.off + offset
	case io.SeekEnd:
		abs = r.size + offset
	default:
		return 0, errors.New("seek: bad whence")
	}
	if abs < 0 {
		return 0, errors.New("seek: negative position")
	}
	if abs != r.off && r.rc != nil {
		_ = r.rc.Close()
		r.rc = nil
	}
	r.off = abs
	return abs, nil
}

// Close releases the open blob reader.
func (r *RangeReader) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	r.rc = nil
	return err
}
