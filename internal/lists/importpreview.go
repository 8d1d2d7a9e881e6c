package lists

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/jobs"
	"coreportal/internal/nodes"
	"coreportal/internal/sheets"
)

// Imports: an uploaded file is kept in the blob store under
// list-imports/<user id>/… for a day (only its uploader can use its token),
// previewed, then imported by a job (importjob.go).

const (
	previewRows  = 10
	uploadTTL    = 24 * time.Hour
	maxProblems  = 5 // rows named per column problem
	maxTitleChar = 200
)

// ImportColumn is one column of an uploaded file.
type ImportColumn struct {
	Index        int      `json:"index" doc:"0-based position in the file"`
	Header       string   `json:"header" doc:"the title in the header row"`
	ProposedType string   `json:"proposedType" enum:"text,multiline_text,number,date,datetime,boolean,choice,person,link" doc:"the field type the values suggest"`
	Choices      []string `json:"choices" doc:"distinct values in the order met when there are at most 30 (choice proposals use them), else []"`
	NonEmpty     int      `json:"nonEmpty" doc:"rows with a value in this column"`
	Skip         bool     `json:"skip" doc:"true for columns not imported by default (SharePoint system columns, columns without a title)"`
	AsTitle      bool     `json:"asTitle" doc:"new list: the column proposed for the list's title field"`
	FieldID      *string  `json:"fieldId" doc:"existing list: the field the column is mapped to by default (same title or internal name, case-insensitive), null when none"`
	Problems     []string `json:"problems" doc:"what would go wrong or be left out, e.g. values the mapped field's type cannot read, with row numbers"`
}

// ImportPreview is what an uploaded file would import.
type ImportPreview struct {
	UploadToken string         `json:"uploadToken" format:"uuid" doc:"send it to the import operation; valid for 24 hours and for the uploader only"`
	FileName    string         `json:"fileName"`
	File        sheets.Info    `json:"file"`
	Rows        int            `json:"rows" doc:"data rows (the header and empty rows not counted)"`
	Columns     []ImportColumn `json:"columns"`
	Sample      [][]any        `json:"sample" doc:"the first 10 rows, one value per column as it would be stored (numbers, booleans, YYYY-MM-DD dates, ISO datetimes, arrays for several entries, null when empty)"`
	Problems    []string       `json:"problems" doc:"problems of the whole file"`
	ExpiresAt   time.Time      `json:"expiresAt"`
}

func uploadKey(userID, token string) string { return blob.KeyFor("list-imports/"+userID, token) }

// storeUpload keeps an uploaded file for a day and returns its token.
func (s *Service) storeUpload(ctx context.Context, p *auth.Principal, r io.Reader) (string, error) {
	if s.blobs == nil || s.jobs == nil {
		return "", errors.New("imports are not wired (blobs, jobs)")
	}
	token := uuid.NewString()
	key := uploadKey(p.UserID, token)
	n, err := s.blobs.Put(ctx, key, io.LimitReader(r, s.maxUpload+1))
	if err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), key)
		if fault.Is(err, fault.CodeValidation) {
			return "", err
		}
		return "", fmt.Errorf("store upload: %w", err)
	}
	if n > s.maxUpload {
		_ = s.blobs.Delete(ctx, key)
		return "", fault.New(fault.CodeTooLarge, "the file is larger than %d bytes", s.maxUpload).With("field", "file")
	}
	if n == 0 {
		_ = s.blobs.Delete(ctx, key)
		return "", fault.Validation("file", "the file is empty")
	}
	if _, err := s.jobs.Enqueue(ctx, jobUploadExpire, uploadExpire{Key: key}, jobs.RunAt(s.now().Add(uploadTTL))); err != nil {
		_ = s.blobs.Delete(ctx, key)
		return "", err
	}
	return token, nil
}

// openUpload opens the caller's upload as a sheet reader.
func (s *Service) openUpload(ctx context.Context, userID, token string) (sheets.Reader, error) {
	if _, err := uuid.Parse(token); err != nil {
		return nil, fault.Validation("uploadToken", "uploadToken must be the UUID a preview answered")
	}
	rc, err := s.blobs.Get(ctx, uploadKey(userID, strings.ToLower(token)))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, fault.Validation("uploadToken", "the upload is unknown or expired: upload the file again")
	}
	if err != nil {
		return nil, fmt.Errorf("open upload: %w", err)
	}
	r, err := sheets.Open(rc, s.maxUpload, sheets.DefaultLimits())
	if err != nil {
		rc.Close()
		return nil, readFault(err)
	}
	return closeBoth{r, rc}, nil
}

type closeBoth struct {
	sheets.Reader
	c io.Closer
}

func (c closeBoth) Close() error { return errors.Join(c.Reader.Close(), c.c.Close()) }

// readFault is the 400 of a file that cannot be read.
func readFault(err error) error {
	if errors.Is(err, sheets.ErrLimit) || errors.Is(err, sheets.ErrFormat) {
		return fault.Validation("file", "%s", err.Error())
	}
	return err
}

// PreviewNewList stores an upload and proposes a list made of it (edit on
// the node, the right to create a list there).
func (s *Service) PreviewNewList(ctx context.Context, p *auth.Principal, nodeID, fileName string, body io.Reader) (ImportPreview, error) {
	if _, err := uuid.Parse(nodeID); err != nil {
		return ImportPreview{}, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return ImportPreview{}, err
	}
	return s.preview(ctx, p, fileName, body, nil)
}

// PreviewIntoList stores an upload and maps its columns to the list's
// fields (view and add on the list).
func (s *Service) PreviewIntoList(ctx context.Context, p *auth.Principal, listID, fileName string, body io.Reader) (ImportPreview, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return ImportPreview{}, err
	}
	if err := s.acl.Require(ctx, p, listRef(listID), acl.Add); err != nil {
		return ImportPreview{}, err
	}
	return s.preview(ctx, p, fileName, body, sc)
}

func (s *Service) preview(ctx context.Context, p *auth.Principal, fileName string, body io.Reader, sc *schema) (ImportPreview, error) {
	token, err := s.storeUpload(ctx, p, body)
	if err != nil {
		return ImportPreview{}, err
	}
	return s.previewStored(ctx, p, token, fileName, sc)
}

// previewStored reads a stored upload: the columns with their proposed
// types (and with sc, their mapping to its fields), sample rows, problems.
func (s *Service) previewStored(ctx context.Context, p *auth.Principal, token, fileName string, sc *schema) (ImportPreview, error) {
	r, err := s.openUpload(ctx, p.UserID, token)
	if err != nil {
		return ImportPreview{}, err
	}
	defer r.Close()
	pv := ImportPreview{UploadToken: token, FileName: fileName, File: r.Info(), Columns: []ImportColumn{}, Sample: [][]any{},
		Problems: []string{}, ExpiresAt: s.now().Add(uploadTTL).UTC()}
	header := r.Header()
	stats := make([]*sheets.Stats, len(header))
	for i := range stats {
		stats[i] = sheets.NewStats()
	}
	var sample [][]sheets.Cell
	extra := false
	users := s.newUserMatcher()
	var chk *valueCheck
	if sc != nil {
		chk = s.newValueCheck(p, sc, header, users)
	}
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return ImportPreview{}, readFault(err)
		}
		pv.Rows++
		for i, c := range row {
			if i < len(stats) {
				stats[i].Add(c)
			} else if strings.TrimSpace(c.Text) != "" {
				extra = true
			}
		}
		if len(sample) < previewRows {
			sample = append(sample, append([]sheets.Cell(nil), row...))
		}
		if chk != nil {
			if err := chk.row(ctx, r.Line(), row); err != nil {
				return ImportPreview{}, err
			}
		}
	}
	if extra {
		pv.Problems = append(pv.Problems, "some rows have values beyond the last titled column; they are not imported")
	}
	if len(header) == 0 {
		pv.Problems = append(pv.Problems, "the header row is empty")
	}
	seen := map[string]bool{}
	titleTaken := false
	for i, h := range header {
		st := stats[i]
		col := ImportColumn{Index: i, Header: h, Choices: []string{}, NonEmpty: st.NonEmpty, Problems: []string{}}
		col.ProposedType = st.Propose(func(vals []string) bool { return users.all(ctx, vals) })
		if d := st.Distinct(); d != nil {
			col.Choices = d
		}
		if why := skipReason(h); why != "" {
			col.Skip = true
			col.Problems = append(col.Problems, why)
		}
		if k := strings.ToLower(h); seen[k] && k != "" {
			col.Skip = true
			col.Problems = append(col.Problems, "skipped: another column has the same title")
		}
		seen[strings.ToLower(h)] = true
		if len([]rune(h)) > maxTitleChar {
			col.Problems = append(col.Problems, fmt.Sprintf("the title is longer than %d characters and will be cut", maxTitleChar))
		}
		if sc == nil && !col.Skip && !titleTaken && titleHeaders[strings.ToLower(h)] {
			col.AsTitle, titleTaken = true, true
		}
		pv.Columns = append(pv.Columns, col)
	}
	if sc == nil && !titleTaken {
		for i := range pv.Columns { // the first text column names the items
			if c := &pv.Columns[i]; !c.Skip && c.ProposedType == sheets.TypeText {
				c.AsTitle = true
				break
			}
		}
	}
	if chk != nil {
		chk.report(&pv)
	}
	for _, row := range sample {
		vals := make([]any, len(pv.Columns))
		for i, c := range pv.Columns {
			if i < len(row) {
				vals[i] = previewValue(c.ProposedType, row[i])
			}
		}
		pv.Sample = append(pv.Sample, vals)
	}
	return pv, nil
}

// fieldByHeader finds the field a column title names: title or internal
// name, case-insensitively (SharePoint "Title" is the title field).
func fieldByHeader(sc *schema, h string) *field.Def {
	k := strings.ToLower(strings.TrimSpace(h))
	if titleHeaders[k] {
		return sc.field(sysTitle)
	}
	for _, f := range sc.fields {
		if editable(f) && (strings.ToLower(f.Title) == k || f.InternalName == k) {
			return f
		}
	}
	return nil
}

// valueCheck maps the columns of a file to a list's fields by title and
// reads every value as its field's type; the first 1,000 rows are also
// validated as a save would (choices, required fields, persons, lookups).
type valueCheck struct {
	s      *Service
	p      *auth.Principal
	sc     *schema
	fields []*field.Def // by column, nil when not mapped
	users  *userMatcher
	bad    map[int][]int // column -> rows (first maxProblems)
	count  map[int]int
	msg    map[int]string
	rows   int
}

const validatedRows = 1000

func (s *Service) newValueCheck(p *auth.Principal, sc *schema, header []string, users *userMatcher) *valueCheck {
	c := &valueCheck{s: s, p: p, sc: sc, fields: make([]*field.Def, len(header)), users: users,
		bad: map[int][]int{}, count: map[int]int{}, msg: map[int]string{}}
	taken := map[string]bool{}
	for i, h := range header {
		if skipReason(h) != "" {
			continue
		}
		if f := fieldByHeader(sc, h); f != nil && !taken[f.ID] {
			c.fields[i], taken[f.ID] = f, true
		}
	}
	return c
}

func (c *valueCheck) fail(col, line int, msg string) {
	c.count[col]++
	if len(c.bad[col]) < maxProblems {
		c.bad[col] = append(c.bad[col], line)
	}
	if c.msg[col] == "" {
		c.msg[col] = msg
	}
}

func (c *valueCheck) row(ctx context.Context, line int, row []sheets.Cell) error {
	c.rows++
	vals := Values{}
	col := map[string]int{}
	for i, f := range c.fields {
		if f == nil || i >= len(row) {
			continue
		}
		raw, msg, err := cellValue(ctx, f, row[i], c.users)
		if err != nil {
			return err
		}
		if msg != "" {
			c.fail(i, line, msg)
			continue
		}
		vals[f.ID], col[f.ID] = raw, i
	}
	if c.rows > validatedRows {
		return nil
	}
	norm, errs := c.s.normalize(ctx, c.p, c.sc, vals, nil)
	for _, e := range errs {
		if i, ok := col[e.FieldID]; ok {
			c.fail(i, line, e.Message)
		}
	}
	_ = norm
	return nil
}

func (c *valueCheck) report(pv *ImportPreview) {
	for i := range pv.Columns {
		col := &pv.Columns[i]
		f := c.fields[i]
		if f == nil {
			if !col.Skip {
				col.Skip = true
				col.Problems = append(col.Problems, "skipped: no field of the list has this title or internal name; choose one in the mapping")
			}
			continue
		}
		id := f.ID
		col.FieldID, col.ProposedType, col.Skip = &id, f.Type, false
		if n := c.count[i]; n > 0 {
			col.Problems = append(col.Problems, fmt.Sprintf("%d values cannot be saved in %q (rows %s): %s", n, f.Title, joinInts(c.bad[i]), c.msg[i]))
		}
	}
	for _, f := range c.sc.fields {
		if f.Required && editable(f) && !mapped(c.fields, f) {
			pv.Problems = append(pv.Problems, fmt.Sprintf("the required field %q is not mapped: new items will fail", f.Title))
		}
	}
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

func mapped(fields []*field.Def, f *field.Def) bool {
	for _, g := range fields {
		if g == f {
			return true
		}
	}
	return false
}
