package surveys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
)

// An export is a job of type surveys.export (its id is the export id); the
// file it writes lives in the blob store under survey-exports/… until the job
// journal retention (service jobs-cleanup) deletes the job, and the file with it.

const exportJob = "surveys.export"

// Export statuses (CONTRACT.md).
const (
	ExportQueued  = "queued"
	ExportRunning = "running"
	ExportDone    = "done"
	ExportFailed  = "failed"
)

var exportStatusOf = map[string]string{jobs.StatusPending: ExportQueued, jobs.StatusRunning: ExportRunning,
	jobs.StatusSucceeded: ExportDone, jobs.StatusFailed: ExportFailed}

type exportPayload struct {
	SurveyID string `json:"surveyId"`
}

type exportResult struct {
	BlobKey  string `json:"blobKey"`
	FileName string `json:"fileName"`
	Rows     int64  `json:"rows"`
	Size     int64  `json:"size"`
}

// ExportStatus is one export as the API shows it.
type SurveyExportStatus struct {
	ID          string     `json:"id" format:"uuid"`
	SurveyID    string     `json:"surveyId" format:"uuid"`
	Status      string     `json:"status" enum:"queued,running,done,failed"`
	FileName    string     `json:"fileName,omitempty" doc:"when done"`
	Rows        int64      `json:"rows,omitempty" doc:"responses in the file, when done"`
	Size        int64      `json:"size,omitempty" doc:"bytes, when done"`
	Error       string     `json:"error,omitempty" doc:"when failed"`
	CreatedAt   time.Time  `json:"createdAt"`
	CompletedAt *time.Time `json:"completedAt"`
}

// Export queues an XLSX export of every response (edit on the survey).
func (s *Service) Export(ctx context.Context, p *auth.Principal, id string) (SurveyExportStatus, error) {
	sv, _, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyExportStatus{}, err
	}
	now := s.now().UTC()
	jobID, err := s.Jobs.Enqueue(ctx, exportJob, exportPayload{SurveyID: sv.ID}, jobs.MaxAttempts(3))
	if err != nil {
		return SurveyExportStatus{}, err
	}
	// the state at creation: a fast worker may already have finished it
	return SurveyExportStatus{ID: jobID, SurveyID: sv.ID, Status: ExportQueued, CreatedAt: now}, nil
}

func statusOf(surveyID string, j *jobs.Job) SurveyExportStatus {
	st := SurveyExportStatus{ID: j.ID, SurveyID: surveyID, Status: exportStatusOf[j.Status], CreatedAt: j.CreatedAt}
	if j.Status == jobs.StatusPending && j.Attempts > 0 {
		st.Status = ExportRunning // waiting for a retry
	}
	switch j.Status {
	case jobs.StatusSucceeded:
		var r exportResult
		_ = json.Unmarshal(j.Result, &r)
		st.FileName, st.Rows, st.Size = r.FileName, r.Rows, r.Size
		st.CompletedAt = j.CompletedAt
	case jobs.StatusFailed:
		st.Error, st.CompletedAt = "the export failed: "+j.Error, j.CompletedAt
	}
	return st
}

// exportOf finds an export of a survey (404 when it is not one of its exports).
func (s *Service) exportOf(ctx context.Context, p *auth.Principal, id, exportID string) (*jobs.Job, string, error) {
	sv, _, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return nil, "", err
	}
	if _, ok := store.CanonicalUUID(exportID); !ok {
		return nil, "", fault.Validation("exportId", "the export id must be a UUID")
	}
	j, err := s.Jobs.Get(ctx, exportID)
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) || fault.Is(err, fault.CodeValidation) {
			return nil, "", fault.NotFound("export")
		}
		return nil, "", err
	}
	var pl exportPayload
	if j.Type != exportJob || j.Decode(&pl) != nil || pl.SurveyID != sv.ID {
		return nil, "", fault.NotFound("export")
	}
	return j, sv.ID, nil
}

// ExportState reports an export (edit on the survey).
func (s *Service) ExportState(ctx context.Context, p *auth.Principal, id, exportID string) (SurveyExportStatus, error) {
	j, sid, err := s.exportOf(ctx, p, id, exportID)
	if err != nil {
		return SurveyExportStatus{}, err
	}
	return statusOf(sid, j), nil
}

// Download opens the file of a finished export (edit on the survey; 409 until it is done).
func (s *Service) Download(ctx context.Context, p *auth.Principal, id, exportID string) (SurveyExportStatus, *blob.RangeReader, error) {
	j, sid, err := s.exportOf(ctx, p, id, exportID)
	if err != nil {
		return SurveyExportStatus{}, nil, err
	}
	st := statusOf(sid, j)
	if st.Status != ExportDone {
		return st, nil, fault.Conflict("the export is %s, not done", st.Status)
	}
	var r exportResult
	if err := json.Unmarshal(j.Result, &r); err != nil || r.BlobKey == "" {
		return st, nil, fmt.Errorf("export %s: bad result: %v", j.ID, err)
	}
	rc, err := s.Blobs.Get(ctx, r.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return st, nil, fault.NotFound("export file")
	}
	if err != nil {
		return st, nil, fmt.Errorf("open export %s: %w", j.ID, err)
	}
	size := r.Size
	if size <= 0 { // a result without its size: ask the store
		if size, err = s.Blobs.Stat(ctx, r.BlobKey); err != nil {
			rc.Close()
			return st, nil, fmt.Errorf("size of export %s: %w", j.ID, err)
		}
	}
	return st, blob.NewRangeReader(ctx, s.Blobs, r.BlobKey, size, rc), nil
}

// runExport is the job handler: it streams the workbook into the blob store.
func (s *Service) runExport(ctx context.Context, j *jobs.Job) (any, error) {
	var pl exportPayload
	if err := j.Decode(&pl); err != nil {
		return nil, jobs.Permanent(fmt.Errorf("export payload: %w", err))
	}
	sv, err := s.st.survey(ctx, pl.SurveyID)
	if store.IsNotFound(err) {
		return nil, jobs.Permanent(errors.New("the survey no longer exists"))
	}
	if err != nil {
		return nil, err
	}
	key := blob.KeyFor("survey-exports", j.ID)
	pr, pw := io.Pipe()
	var rows int64
	done := make(chan error, 1)
	go func() {
		n, err := s.writeWorkbook(ctx, sv, pw)
		rows = n
		pw.CloseWithError(err)
		done <- err
	}()
	size, putErr := s.Blobs.Put(ctx, key, pr)
	pr.CloseWithError(errors.New("export aborted")) // unblocks the writer if Put stopped early
	werr := <-done
	if werr != nil {
		return nil, fmt.Errorf("write workbook: %w", werr)
	}
	if putErr != nil {
		return nil, fmt.Errorf("store workbook: %w", putErr)
	}
	return exportResult{BlobKey: key, FileName: sv.Slug + "-responses.xlsx", Rows: rows, Size: size}, nil
}

// purgeExports deletes the files of exports the job retention removes.
func (s *Service) purgeExports(ctx context.Context, js []*jobs.Job) error {
	for _, j := range js {
		if err := s.Blobs.Delete(ctx, blob.KeyFor("survey-exports", j.ID)); err != nil {
			return err
		}
	}
	return nil
}
