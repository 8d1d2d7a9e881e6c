package libraries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"coreportal/internal/doctext"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
)

// JobExtractText extracts the text of one file version into file_texts and
// re-indexes the file with it.
const JobExtractText = "search.extractText"

// textJob is the payload of JobExtractText.
type textJob struct {
	LibraryID string `json:"libraryId"`
	FileGUID  string `json:"fileGuid"`
	VersionID string `json:"versionId"`
	Name      string `json:"name"`
}

// TextResult is the result of a JobExtractText job.
type TextResult struct {
	Format  string `json:"format,omitempty"`
	Chars   int    `json:"chars" doc:"bytes of text stored"`
	Skipped string `json:"skipped,omitempty" doc:"why nothing was extracted (file gone, newer version, already done)"`
}

// UseTextExtraction registers the extraction job on q and makes uploads,
// version restores and the crawler queue it (wiring).
func (s *Service) UseTextExtraction(q *jobs.Queue, lim doctext.Limits) {
	s.jobs, s.textLimits = q, lim
	q.Handle(JobExtractText, s.extractText)
}

// queueText enqueues the extraction of f's current version in the
// transaction of ctx, for files of a format with text.
func (s *Service) queueText(ctx context.Context, f *File, opts ...jobs.Option) error {
	if s.jobs == nil || f.IsFolder || doctext.Format(f.Name, f.MimeType) == "" {
		return nil
	}
	_, err := s.jobs.Enqueue(ctx, JobExtractText, textJob{LibraryID: f.LibraryID, FileGUID: f.GUID, VersionID: f.VersionID, Name: f.Name},
		append([]jobs.Option{jobs.MaxAttempts(3)}, opts...)...)
	if err != nil {
		return fmt.Errorf("queue text extraction of %s: %w", f.GUID, err)
	}
	return nil
}

// extractText is the JobExtractText handler. A document the extractor
// refuses (malformed, hostile, too large, too slow) fails the job at once
// with the reason; the failure is recorded so the crawler does not queue
// that version again, and the file stays indexed by name and fields.
func (s *Service) extractText(ctx context.Context, j *jobs.Job) (any, error) {
	var p textJob
	if err := j.Decode(&p); err != nil || p.FileGUID == "" {
		return nil, jobs.Permanent(fmt.Errorf("bad payload of %s: %v", JobExtractText, err))
	}
	f, err := s.st.fileAny(ctx, p.FileGUID)
	if store.IsNotFound(err) {
		return TextResult{Skipped: "the file was purged"}, nil
	}
	if err != nil {
		return nil, err
	}
	if f.VersionID != p.VersionID {
		return TextResult{Skipped: "a newer version replaced this one"}, nil
	}
	if have, err := s.st.textVersion(ctx, f.GUID); err != nil {
		return nil, err
	} else if have == f.VersionID {
		return TextResult{Skipped: "already extracted"}, nil
	}
	format := doctext.Format(f.Name, f.MimeType)
	text, xerr := s.extractBlob(ctx, f)
	var blobErr *blobError
	if errors.As(xerr, &blobErr) {
		return nil, xerr // storage trouble: retried
	}
	if ctx.Err() != nil { // the job was stopped (shutdown, lease): retried, nothing recorded
		return nil, fmt.Errorf("text extraction of %s interrupted: %w", f.GUID, ctx.Err())
	}
	msg := ""
	if xerr != nil {
		msg = xerr.Error()
		text = ""
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		// locked: an edit of the file's values committing meanwhile is read
		// below, never overwritten in the index by what was read before it
		cur, err := s.st.fileLocked(ctx, f.GUID)
		if store.IsNotFound(err) || err == nil && cur.VersionID != f.VersionID {
			return errSuperseded
		}
		if err != nil {
			return err
		}
		if err := s.st.saveText(ctx, f.GUID, f.VersionID, text, msg, s.now().UTC()); err != nil {
			return err
		}
		if xerr != nil {
			return nil // the entry without text stays as it is
		}
		live, err := s.st.file(ctx, f.LibraryID, "guid", f.GUID)
		if store.IsNotFound(err) {
			return nil // in the recycle bin: indexed with the text when restored
		}
		if err != nil {
			return err
		}
		l, err := s.load(ctx, f.LibraryID)
		if fault.Is(err, fault.CodeNotFound) {
			return nil // library in the recycle bin: indexed when restored
		}
		if err != nil {
			return err
		}
		return s.indexFile(ctx, l, live)
	})
	if errors.Is(err, errSuperseded) {
		return TextResult{Skipped: "a newer version replaced this one"}, nil
	}
	if err != nil {
		return nil, err
	}
	if xerr != nil {
		slog.WarnContext(ctx, "document text not extracted", "file", f.GUID, "name", f.Name, "err", xerr)
		return nil, jobs.Permanent(fmt.Errorf("text of %q not extracted (the file stays searchable by name): %w", f.Name, xerr))
	}
	return TextResult{Format: format, Chars: len(text)}, nil
}

// crawlTextGap spaces the extraction jobs the crawler queues (files
// uploaded before extraction existed, or whose text was lost): the queue
// runs jobs in run_at order, so a backlog of thousands released at 10 per
// second never holds up a mail or an upload's own extraction queued later.
const crawlTextGap = 100 * time.Millisecond

// crawlTextSlot returns the run time of the next crawler-queued extraction.
func (s *Service) crawlTextSlot() time.Time {
	s.textMu.Lock()
	defer s.textMu.Unlock()
	if now := s.now(); s.textSlot.Before(now) {
		s.textSlot = now
	}
	s.textSlot = s.textSlot.Add(crawlTextGap)
	return s.textSlot
}

var errSuperseded = errors.New("libraries: file version superseded")

// blobError marks a failure to read the stored bytes (retried, unlike
// extraction failures).
type blobError struct{ err error }

func (e *blobError) Error() string { return "read stored file: " + e.err.Error() }
func (e *blobError) Unwrap() error { return e.err }

// extractBlob copies the file's bytes (at most the input limit) to a
// temporary file, which gives the extractor random access, and extracts.
func (s *Service) extractBlob(ctx context.Context, f *File) (string, error) {
	rc, err := s.blobs.Get(ctx, f.BlobKey)
	if err != nil {
		return "", &blobError{err}
	}
	defer rc.Close()
	tmp, err := os.CreateTemp("", "coreportal-text-*")
	if err != nil {
		return "", &blobError{err}
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	n, err := io.Copy(tmp, io.LimitReader(rc, s.textLimits.MaxInput+1))
	if err != nil {
		return "", &blobError{err}
	}
	if n > s.textLimits.MaxInput && doctext.Format(f.Name, f.MimeType) != doctext.Plain {
		return "", fmt.Errorf("%w: over %d bytes", doctext.ErrTooLarge, s.textLimits.MaxInput)
	}
	return doctext.Extract(ctx, tmp, min(n, s.textLimits.MaxInput), f.Name, f.MimeType, s.textLimits)
}

// textVersion is the version whose text (or failure) file_texts holds for a file.
func (s *Store) textVersion(ctx context.Context, guid string) (string, error) {
	var v string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT version_id FROM file_texts WHERE file_guid = ?", guid).Scan(&v)
	if store.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("text version of %s: %w", guid, err)
	}
	return v, nil
}

func (s *Store) saveText(ctx context.Context, guid, versionID, text, errMsg string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO file_texts (file_guid, version_id, text, error, extracted_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (file_guid) DO UPDATE SET version_id = EXCLUDED.version_id, text = EXCLUDED.text, error = EXCLUDED.error,
		extracted_at = EXCLUDED.extracted_at`, guid, versionID, text, errMsg, at)
	if err != nil {
		return fmt.Errorf("save text of %s: %w", guid, err)
	}
	return nil
}

// fileText is the extracted text of the file's current version ("" when
// none yet, or only an older version's).
func (s *Store) fileText(ctx context.Context, f *File) (string, error) {
	if f.IsFolder {
		return "", nil
	}
	var t string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT text FROM file_texts WHERE file_guid = ? AND version_id = ?", f.GUID, f.VersionID).Scan(&t)
	if store.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("text of %s: %w", f.GUID, err)
	}
	return t, nil
}

// fileTexts returns the texts of the current versions of files (by guid),
// and whether each file has a file_texts row for its current version.
func (s *Store) fileTexts(ctx context.Context, files []*File) (map[string]string, error) {
	out := map[string]string{}
	for len(files) > 0 {
		n := min(len(files), 500)
		ids := make([]string, 0, n)
		for _, f := range files[:n] {
			ids = append(ids, f.GUID)
		}
		rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT t.file_guid, t.text FROM file_texts t JOIN library_files f ON f.guid = t.file_guid
			WHERE t.version_id = f.version_id AND t.file_guid IN (`+store.Placeholders(n)+`)`, idArgs(ids)...)
		if err != nil {
			return nil, fmt.Errorf("file texts: %w", err)
		}
		for rows.Next() {
			var g, t string
			if err := rows.Scan(&g, &t); err != nil {
				rows.Close()
				return nil, fmt.Errorf("file texts: %w", err)
			}
			out[g] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("file texts: %w", err)
		}
		files = files[n:]
	}
	return out, nil
}
