package libraries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/preview"
	"coreportal/internal/store"
)

// JobPreview renders the preview of one file version into file_previews.
const JobPreview = "libraries.preview"

// previewJob is the payload of JobPreview.
type previewJob struct {
	LibraryID string `json:"libraryId"`
	FileGUID  string `json:"fileGuid"`
	VersionID string `json:"versionId"`
	Name      string `json:"name"`
}

// PreviewResult is the result of a JobPreview job.
type PreviewResult struct {
	Image   int    `json:"image,omitempty" doc:"bytes of the PNG preview"`
	PDF     int    `json:"pdf,omitempty" doc:"bytes of the first-page PDF"`
	Skipped string `json:"skipped,omitempty"`
}

// UsePreviews registers the preview job on q and makes uploads and version
// restores queue it for the kinds r renders (wiring).
func (s *Service) UsePreviews(q *jobs.Queue, r *preview.Renderer) {
	s.previewQ, s.previews = q, r
	q.Handle(JobPreview, s.makePreview)
}

// queuePreview enqueues the preview of f's current version in the
// transaction of ctx, for files of a kind that gets one.
func (s *Service) queuePreview(ctx context.Context, f *File) error {
	if s.previewQ == nil || f.IsFolder || s.previews.Kind(f.Name, f.MimeType) == "" {
		return nil
	}
	_, err := s.previewQ.Enqueue(ctx, JobPreview, previewJob{LibraryID: f.LibraryID, FileGUID: f.GUID, VersionID: f.VersionID, Name: f.Name},
		jobs.MaxAttempts(2))
	if err != nil {
		return fmt.Errorf("queue preview of %s: %w", f.GUID, err)
	}
	return nil
}

// makePreview is the JobPreview handler. A document the renderer refuses
// (unreadable, over the limits, LibreOffice failing or too slow) is
// recorded as having no preview and fails the job at once with the reason.
func (s *Service) makePreview(ctx context.Context, j *jobs.Job) (any, error) {
	var p previewJob
	if err := j.Decode(&p); err != nil || p.FileGUID == "" || p.VersionID == "" {
		return nil, jobs.Permanent(fmt.Errorf("bad payload of %s: %v", JobPreview, err))
	}
	f, err := s.st.fileAny(ctx, p.FileGUID)
	if store.IsNotFound(err) {
		return PreviewResult{Skipped: "the file was purged"}, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := s.st.version(ctx, f.GUID, p.VersionID)
	if store.IsNotFound(err) {
		return PreviewResult{Skipped: "the version was purged"}, nil
	}
	if err != nil {
		return nil, err
	}
	if done, err := s.st.hasPreviewRow(ctx, v.ID); err != nil || done {
		return PreviewResult{Skipped: "already made"}, err
	}
	res, rerr := s.renderVersion(ctx, f.Name, v)
	var blobErr *blobError
	if errors.As(rerr, &blobErr) {
		return nil, rerr // storage trouble: retried
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("preview of %s interrupted: %w", f.GUID, ctx.Err())
	}
	row := previewRow{VersionID: v.ID, MadeAt: s.now().UTC()}
	if rerr != nil {
		row.Error = rerr.Error()
	} else {
		row.PNG, row.PDF = res.PNG, res.PDF
	}
	if err := s.st.savePreview(ctx, row); store.IsNotFound(err) {
		return PreviewResult{Skipped: "the version was purged"}, nil
	} else if err != nil {
		return nil, err
	}
	if rerr != nil {
		slog.WarnContext(ctx, "no preview", "file", f.GUID, "name", f.Name, "err", rerr)
		return nil, jobs.Permanent(fmt.Errorf("no preview of %q: %w", f.Name, rerr))
	}
	return PreviewResult{Image: len(row.PNG), PDF: len(row.PDF)}, nil
}

// renderVersion copies a version's bytes (at most the input limit) to a
// temporary file and renders it.
func (s *Service) renderVersion(ctx context.Context, name string, v *FileVersion) (*preview.Result, error) {
	if v.Size > s.previews.Limits.MaxInput {
		return nil, fmt.Errorf("%w: over %d bytes", preview.ErrLimit, s.previews.Limits.MaxInput)
	}
	rc, err := s.blobs.Get(ctx, v.blobKey)
	if err != nil {
		return nil, &blobError{err}
	}
	defer rc.Close()
	tmp, err := os.CreateTemp("", "coreportal-preview-in-*")
	if err != nil {
		return nil, &blobError{err}
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	if _, err := io.Copy(tmp, io.LimitReader(rc, s.previews.Limits.MaxInput)); err != nil {
		return nil, &blobError{err}
	}
	if err := tmp.Close(); err != nil {
		return nil, &blobError{err}
	}
	return s.previews.Render(ctx, tmp.Name(), name, v.MimeType)
}

// Preview is a stored preview as the HTTP layer serves it.
type Preview struct {
	Body      []byte
	MimeType  string
	VersionID string
	Name      string
	MadeAt    time.Time
}

// Preview returns the preview of a file version (view on the file; the
// current version when versionID is empty): format "png" (the image) or
// "pdf" (the first page of an Office document). 404 when the version has
// no such preview (not made yet, not a kind that gets one, failed).
func (s *Service) Preview(ctx context.Context, p *auth.Principal, libraryID, ref, versionID, format string) (*Preview, error) {
	ctx = asViewer(ctx, p)
	if format == "" {
		format = "png"
	}
	if format != "png" && format != "pdf" {
		return nil, fault.Validation("format", "format must be png or pdf")
	}
	var vid string
	if versionID != "" {
		id, ok := store.CanonicalUUID(versionID)
		if !ok {
			return nil, fault.Validation("versionId", "versionId must be a UUID")
		}
		vid = id
	}
	_, f, err := s.openFile(ctx, p, libraryID, ref, acl.View)
	if err != nil {
		return nil, err
	}
	if f.IsFolder {
		return nil, fault.Validation("fileRef", "a folder has no preview")
	}
	if vid == "" {
		vid = f.VersionID
	} else if _, err := s.st.version(ctx, f.GUID, vid); store.IsNotFound(err) {
		return nil, fault.NotFound("version")
	} else if err != nil {
		return nil, err
	}
	body, madeAt, err := s.st.previewBytes(ctx, vid, format)
	if store.IsNotFound(err) || err == nil && len(body) == 0 {
		return nil, fault.NotFound("preview")
	}
	if err != nil {
		return nil, err
	}
	mt := "image/png"
	if format == "pdf" {
		mt = "application/pdf"
	}
	return &Preview{Body: body, MimeType: mt, VersionID: vid, Name: f.Name, MadeAt: madeAt}, nil
}
