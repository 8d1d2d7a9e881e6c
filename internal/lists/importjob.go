package lists

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/export"
	"coreportal/internal/field"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
)

const (
	jobImport       = "lists.import"
	jobUploadExpire = "lists.importUploadExpire"
	importAttempts  = 50
	importBatch     = 200 // rows per quick-edit call
	// checkpointRows: progress (where to resume) and the error report are
	// saved every this many rows; a worker that dies redoes at most these.
	checkpointRows = 2000
	// MaxReportErrors bounds the error report of one import.
	MaxReportErrors = 100_000
	statusErrors    = 20
)

var errContinue = errors.New("the import continues in its next run")

type uploadExpire struct {
	Key string `json:"key"`
}

// ImportError is one failed cell or row of an import.
type ImportError struct {
	Row     int    `json:"row" doc:"row number in the file (the header is row 1)"`
	Column  string `json:"column" doc:"the column's header; empty when the whole row failed"`
	Message string `json:"message"`
}

// importState is the job's result: its progress while it runs, the outcome after.
type importState struct {
	Rows       int           `json:"rows"`
	Read       int           `json:"read"`
	Created    int           `json:"created"`
	Updated    int           `json:"updated"`
	Failed     int           `json:"failed"`
	ErrorCount int           `json:"errorCount"`
	Errors     []ImportError `json:"errors"`   // the first statusErrors
	NextLine   int           `json:"nextLine"` // resume after this file row
	Segments   []string      `json:"segments"` // blob keys of the report's parts
}

// ImportStatus is an import as the API shows it.
type ImportStatus struct {
	ID          string        `json:"id" format:"uuid" doc:"the import id (also a job id: GET /jobs/{id} for administrators)"`
	ListID      string        `json:"listId" format:"uuid"`
	Status      string        `json:"status" enum:"queued,running,done,failed"`
	Rows        int           `json:"rows" doc:"data rows in the file (0 until the import counted them)"`
	Read        int           `json:"read" doc:"rows processed so far"`
	Created     int           `json:"created"`
	Updated     int           `json:"updated"`
	Failed      int           `json:"failed" doc:"rows not saved"`
	ErrorCount  int           `json:"errorCount" doc:"errors in the report (at most 100,000)"`
	Errors      []ImportError `json:"errors" doc:"the first 20 errors; the whole report is GET …/imports/{importId}/errors"`
	Error       string        `json:"error,omitempty" doc:"when failed: why the import stopped"`
	CreatedAt   time.Time     `json:"createdAt"`
	CompletedAt *time.Time    `json:"completedAt"`
}

func importStatusOf(listID string, j *jobs.Job) ImportStatus {
	st := ImportStatus{ID: j.ID, ListID: listID, Status: exportStatus(j), Errors: []ImportError{}, CreatedAt: j.CreatedAt}
	var r importState
	if len(j.Result) > 0 && json.Unmarshal(j.Result, &r) == nil {
		st.Rows, st.Read, st.Created, st.Updated, st.Failed, st.ErrorCount = r.Rows, r.Read, r.Created, r.Updated, r.Failed, r.ErrorCount
		if r.Errors != nil {
			st.Errors = r.Errors
		}
	}
	if j.Status == jobs.StatusSucceeded || j.Status == jobs.StatusFailed {
		st.CompletedAt = j.CompletedAt
	}
	if j.Status == jobs.StatusFailed {
		st.Error = j.Error
	}
	return st
}

// Import statuses.
const (
	ExportQueued  = "queued"
	ExportRunning = "running"
	ExportDone    = "done"
	ExportFailed  = "failed"
)

func exportStatus(j *jobs.Job) string {
	switch j.Status {
	case jobs.StatusSucceeded:
		return ExportDone
	case jobs.StatusFailed:
		return ExportFailed
	case jobs.StatusRunning:
		return ExportRunning
	}
	if j.Attempts > 0 {
		return ExportRunning // between two runs of a long import
	}
	return ExportQueued
}

// importRun is one run of an import job.
type importRun struct {
	s       *Service
	p       *auth.Principal
	pl      importPayload
	st      importState
	sc      *schema
	fields  map[int]*field.Def
	headers []string
	users   *userMatcher
	keys    map[string]int64 // key -> item number; -1 when several items share it
	pending []ImportError    // errors since the last checkpoint
	jobID   string
}

func (s *Service) runImport(ctx context.Context, j *jobs.Job) (any, error) {
	var pl importPayload
	if err := j.Decode(&pl); err != nil {
		return nil, jobs.Permanent(fmt.Errorf("import payload: %w", err))
	}
	p := auth.FromContext(ctx)
	if p == nil || p.UserID == "" {
		return nil, jobs.Permanent(errors.New("the import has no acting user"))
	}
	ru := &importRun{s: s, p: p, pl: pl, users: s.newUserMatcher(), jobID: j.ID}
	if len(j.Result) > 0 {
		_ = json.Unmarshal(j.Result, &ru.st) // resume from the last checkpoint
	}
	if ru.st.Errors == nil {
		ru.st.Errors = []ImportError{}
	}
	vctx := asViewer(ctx, p)
	sc, err := s.load(vctx, pl.ListID)
	if store.IsNotFound(err) {
		return nil, jobs.Permanent(errors.New("the list no longer exists"))
	}
	if err != nil {
		return nil, err
	}
	ru.sc, ru.fields = sc, map[int]*field.Def{}
	for col, id := range pl.Columns {
		if f, ok := sc.byID[id]; ok {
			ru.fields[col] = f
		}
	}
	if err := ru.loadKeys(vctx); err != nil {
		return nil, err
	}
	if ru.st.Rows == 0 {
		if ru.st.Rows, err = ru.count(ctx); err != nil {
			return nil, err
		}
	}
	err = ru.run(vctx)
	if cerr := ru.checkpoint(ctx); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err // errContinue: the next run resumes at the checkpoint
	}
	_ = s.blobs.Delete(context.WithoutCancel(ctx), uploadKey(p.UserID, pl.Token))
	return ru.st, nil
}

// count reads the file once for the number of rows (progress).
func (ru *importRun) count(ctx context.Context) (int, error) {
	r, err := ru.s.openUpload(ctx, ru.p.UserID, ru.pl.Token)
	if err != nil {
		return 0, jobs.Permanent(err)
	}
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return 0, jobs.Permanent(err)
		}
		n++
	}
}

func (ru *importRun) run(ctx context.Context) error {
	r, err := ru.s.openUpload(ctx, ru.p.UserID, ru.pl.Token)
	if err != nil {
		return jobs.Permanent(err)
	}
	defer r.Close()
	ru.headers = r.Header()
	began := time.Now()
	sinceCheckpoint := 0
	var batch []importRow
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return jobs.Permanent(err)
		}
		line := r.Line()
		if line <= ru.st.NextLine {
			continue // done in an earlier run
		}
		ir, flush := ru.prepare(ctx, line, row, batch)
		if flush {
			if err := ru.save(ctx, batch); err != nil {
				return err
			}
			batch, ru.st.NextLine = batch[:0], line-1
			sinceCheckpoint = ru.afterSave(ctx, sinceCheckpoint)
		}
		if ir != nil {
			batch = append(batch, *ir)
		}
		if len(batch) >= importBatch {
			if err := ru.save(ctx, batch); err != nil {
				return err
			}
			batch, ru.st.NextLine = batch[:0], line
			sinceCheckpoint = ru.afterSave(ctx, sinceCheckpoint)
			if time.Since(began) > ru.s.runBudget() {
				if err := ru.checkpoint(ctx); err != nil {
					return err
				}
				return errContinue
			}
		}
	}
	if err := ru.save(ctx, batch); err != nil {
		return err
	}
	ru.st.NextLine = r.Line()
	return nil
}

// afterSave reports progress after a batch and checkpoints now and then.
func (ru *importRun) afterSave(ctx context.Context, since int) int {
	since += importBatch
	if since >= checkpointRows {
		if err := ru.checkpoint(ctx); err != nil {
			slog.WarnContext(ctx, "import checkpoint", "err", err)
		}
		return 0
	}
	if err := ru.s.jobs.Progress(ctx, ru.st); err != nil {
		slog.WarnContext(ctx, "import progress", "err", err)
	}
	return since
}

// checkpoint writes the errors since the last one as a part of the report
// and records where a next run resumes.
func (ru *importRun) checkpoint(ctx context.Context) error {
	if len(ru.pending) > 0 {
		var buf bytes.Buffer
		cw := csv.NewWriter(&buf)
		for _, e := range ru.pending {
			_ = cw.Write([]string{strconv.Itoa(e.Row), export.Neutralise(e.Column), export.Neutralise(export.EscapeControls(e.Message))})
		}
		cw.Flush()
		key := blob.KeyFor("list-import-reports", ru.jobID) + "-" + strconv.Itoa(len(ru.st.Segments))
		if _, err := ru.s.blobs.Put(context.WithoutCancel(ctx), key, &buf); err != nil {
			return fmt.Errorf("store import report: %w", err)
		}
		ru.st.Segments = append(ru.st.Segments, key)
		ru.pending = nil
	}
	return ru.s.jobs.Progress(context.WithoutCancel(ctx), ru.st)
}

func (ru *importRun) fail(line int, column, msg string) {
	ru.st.ErrorCount++
	if ru.st.ErrorCount > MaxReportErrors {
		ru.st.ErrorCount = MaxReportErrors
		return
	}
	e := ImportError{Row: line, Column: column, Message: msg}
	if len(ru.st.Errors) < statusErrors {
		ru.st.Errors = append(ru.st.Errors, e)
	}
	ru.pending = append(ru.pending, e)
}

// purgeImports deletes the reports (and uploads left) of imports the job
// retention removes.
func (s *Service) purgeImports(ctx context.Context, js []*jobs.Job) error {
	for _, j := range js {
		var st importState
		_ = json.Unmarshal(j.Result, &st)
		for _, k := range st.Segments {
			if err := s.blobs.Delete(ctx, k); err != nil && !errors.Is(err, blob.ErrNotFound) {
				return err
			}
		}
		var pl importPayload
		if j.Decode(&pl) == nil && pl.Token != "" && j.ActorID != "" {
			if err := s.blobs.Delete(ctx, uploadKey(j.ActorID, pl.Token)); err != nil && !errors.Is(err, blob.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// expireUpload deletes an upload a day after it arrived.
func (s *Service) expireUpload(ctx context.Context, j *jobs.Job) (any, error) {
	var u uploadExpire
	if err := j.Decode(&u); err != nil || !strings.HasPrefix(u.Key, "list-imports/") {
		return nil, jobs.Permanent(fmt.Errorf("upload expiry payload: %v", err))
	}
	if err := s.blobs.Delete(ctx, u.Key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return nil, err
	}
	return nil, nil
}

// runBudget is how long one run of an import may last: the job's lease
// less a margin for the last batch and the checkpoint (at least a minute).
func (s *Service) runBudget() time.Duration {
	return max(s.jobs.Lease-90*time.Second, time.Minute)
}
