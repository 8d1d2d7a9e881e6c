package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/jobs"
)

// UseJobs connects the job queue that runs imports and registers the
// import handlers (before the queue runs).
func (s *Service) UseJobs(q *jobs.Queue) {
	s.jobs = q
	q.Handle(jobImport, s.runImport)
	q.OnPurge(jobImport, s.purgeImports)
	q.Handle(jobUploadExpire, s.expireUpload)
}

// ImportColumnChoice is how one column of the file is imported into a new list.
type ImportColumnChoice struct {
	Index         int      `json:"index" minimum:"0" doc:"the column's index in the preview"`
	Title         string   `json:"title,omitempty" doc:"the field title (default: the column's header)"`
	FieldType     string   `json:"fieldType,omitempty" doc:"text, multiline_text, number, date, datetime, boolean, choice, person or link (default: the proposed type)"`
	Choices       []string `json:"choices,omitempty" doc:"choice: the options (default: the distinct values of the column)"`
	AllowMultiple bool     `json:"allowMultiple,omitempty" doc:"choice and person: several entries per cell, separated by ;"`
	AsTitle       bool     `json:"asTitle,omitempty" doc:"fills the list's title field instead of a new field (one column at most)"`
	Skip          bool     `json:"skip,omitempty" doc:"not imported"`
}

// NewListImport is the body of an import into a new list.
type NewListImport struct {
	UploadToken string               `json:"uploadToken" format:"uuid"`
	Title       string               `json:"title" minLength:"1" maxLength:"200"`
	Slug        string               `json:"slug"`
	Description string               `json:"description,omitempty"`
	Columns     []ImportColumnChoice `json:"columns,omitempty" doc:"columns to import; default: the preview's proposal (columns with skip false, title from asTitle)"`
}

// ImportMapping maps one column of the file to a field of the list.
type ImportMapping struct {
	Column  string `json:"column" doc:"the column's header, or its 0-based index as digits"`
	FieldID string `json:"fieldId" doc:"field UUID or internal name"`
}

// ItemsImport is the body of an import into an existing list.
type ItemsImport struct {
	UploadToken string          `json:"uploadToken" format:"uuid"`
	Mapping     []ImportMapping `json:"mapping,omitempty" doc:"default: columns whose header is a field's title or internal name (case-insensitive; Title and Название map to the title field); SharePoint system columns are never mapped"`
	KeyField    string          `json:"keyField,omitempty" doc:"field UUID or internal name (a text or number field, or item_number) whose value finds the item a row updates; rows without a match create items; empty: every row creates an item"`
	KeyColumn   string          `json:"keyColumn,omitempty" doc:"the column (header or 0-based index) holding the key; default: the column mapped to keyField"`
}

// importPayload is the job's payload.
type importPayload struct {
	ListID   string         `json:"listId"`
	Token    string         `json:"token"`
	FileName string         `json:"fileName,omitempty"`
	Columns  map[int]string `json:"columns"` // file column -> field id
	KeyField string         `json:"keyField,omitempty"`
	KeyCol   int            `json:"keyCol"`
	NewList  bool           `json:"newList,omitempty"`
}

var importTypes = map[string]bool{field.Text: true, field.MultilineText: true, field.Number: true, field.Date: true, field.DateTime: true,
	field.Boolean: true, field.Choice: true, field.Person: true, field.Link: true}

// ImportNewList creates a list from an upload (edit on the node) and queues
// the import of its rows.
func (s *Service) ImportNewList(ctx context.Context, p *auth.Principal, nodeID string, in NewListImport) (ImportStatus, error) {
	r, err := s.openUpload(ctx, p.UserID, in.UploadToken)
	if err != nil {
		return ImportStatus{}, err
	}
	header := r.Header()
	r.Close()
	cols, err := s.newListColumns(ctx, p, in, header)
	if err != nil {
		return ImportStatus{}, err
	}
	nl := NewList{NodeID: nodeID, Title: in.Title, Slug: in.Slug, Description: in.Description}
	titleCol := -1
	var order []int
	for _, c := range cols {
		if c.AsTitle {
			titleCol = c.Index
			continue
		}
		nl.Fields = append(nl.Fields, c.input())
		order = append(order, c.Index)
	}
	out, err := s.Create(ctx, p, nl)
	if err != nil {
		return ImportStatus{}, err
	}
	pl := importPayload{ListID: out.ID, Token: strings.ToLower(in.UploadToken), Columns: map[int]string{}, NewList: true}
	custom := 0
	for _, f := range out.Fields {
		switch {
		case f.InternalName == sysTitle && titleCol >= 0:
			pl.Columns[titleCol] = f.ID
		case !f.IsSystem && custom < len(order):
			pl.Columns[order[custom]] = f.ID
			custom++
		}
	}
	if titleCol < 0 { // nothing names the items: the title is optional
		req := false
		if _, err := s.UpdateField(ctx, p, out.ID, titleID(out.Fields), FieldInput{IsRequired: &req}); err != nil {
			return ImportStatus{}, err
		}
	}
	return s.enqueueImport(ctx, p, pl)
}

func titleID(fs []FieldOut) string {
	for _, f := range fs {
		if f.InternalName == sysTitle {
			return f.ID
		}
	}
	return ""
}

func (c ImportColumnChoice) input() FieldInput {
	title, typ := c.Title, c.FieldType
	in := FieldInput{Title: &title, FieldType: &typ}
	switch typ {
	case field.Choice:
		st := map[string]any{"choices": c.Choices, "allowMultiple": c.AllowMultiple}
		in.Settings, _ = json.Marshal(st)
	case field.Person:
		st := map[string]any{"allowUsers": true, "allowGroups": false, "allowMultiple": c.AllowMultiple}
		in.Settings, _ = json.Marshal(st)
	}
	return in
}

// newListColumns completes the chosen columns with the preview's proposal
// (a read of the file) and validates them.
func (s *Service) newListColumns(ctx context.Context, p *auth.Principal, in NewListImport, header []string) ([]ImportColumnChoice, error) {
	pv, err := s.proposal(ctx, p, in.UploadToken)
	if err != nil {
		return nil, err
	}
	chosen := in.Columns
	if len(chosen) == 0 {
		for _, c := range pv.Columns {
			if !c.Skip {
				chosen = append(chosen, ImportColumnChoice{Index: c.Index, AsTitle: c.AsTitle})
			}
		}
	}
	var out []ImportColumnChoice
	seen, titles := map[int]bool{}, 0
	for i, c := range chosen {
		name := fmt.Sprintf("columns[%d]", i)
		if c.Index < 0 || c.Index >= len(header) {
			return nil, fault.Validation(name+".index", "the file has no column %d", c.Index)
		}
		if seen[c.Index] {
			return nil, fault.Validation(name+".index", "column %d is chosen twice", c.Index)
		}
		seen[c.Index] = true
		if c.Skip {
			continue
		}
		pc := pv.Columns[c.Index]
		if c.Title == "" {
			c.Title = pc.Header
		}
		if r := []rune(strings.TrimSpace(c.Title)); len(r) > maxTitleChar {
			c.Title = string(r[:maxTitleChar])
		}
		if strings.TrimSpace(c.Title) == "" {
			c.Title = fmt.Sprintf("Column %d", c.Index+1)
		}
		if c.FieldType == "" {
			c.FieldType = pc.ProposedType
		}
		if !importTypes[c.FieldType] {
			return nil, fault.Validation(name+".fieldType", "fieldType must be text, multiline_text, number, date, datetime, boolean, choice, person or link")
		}
		if c.FieldType == field.Choice && len(c.Choices) == 0 {
			c.Choices = choicesOf(pc.Choices, c.AllowMultiple)
		}
		if c.AsTitle {
			titles++
		}
		out = append(out, c)
	}
	if titles > 1 {
		return nil, fault.Validation("columns", "at most one column may be asTitle")
	}
	return out, nil
}

// choicesOf are the options of a choice column: its distinct values (split
// into entries when a cell holds several).
func choicesOf(distinct []string, multiple bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range distinct {
		parts := []string{strings.TrimSpace(d)}
		if multiple {
			parts = splitEntries(d)
		}
		for _, p := range parts {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"—"}
	}
	return out
}

// proposal reads an upload again as its preview did (without storing it again).
func (s *Service) proposal(ctx context.Context, p *auth.Principal, token string) (ImportPreview, error) {
	return s.previewStored(ctx, p, token, "", nil)
}

// ImportIntoList queues the import of an upload into a list (view and add
// on the list; each row then needs what quick edit needs).
func (s *Service) ImportIntoList(ctx context.Context, p *auth.Principal, listID string, in ItemsImport) (ImportStatus, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return ImportStatus{}, err
	}
	if err := s.acl.Require(ctx, p, listRef(listID), acl.Add); err != nil {
		return ImportStatus{}, err
	}
	r, err := s.openUpload(ctx, p.UserID, in.UploadToken)
	if err != nil {
		return ImportStatus{}, err
	}
	header := r.Header()
	r.Close()
	pl := importPayload{ListID: listID, Token: strings.ToLower(in.UploadToken), Columns: map[int]string{}}
	if len(in.Mapping) == 0 {
		chk := s.newValueCheck(p, sc, header, nil)
		for i, f := range chk.fields {
			if f != nil {
				pl.Columns[i] = f.ID
			}
		}
	}
	taken := map[string]bool{}
	for i, m := range in.Mapping {
		name := fmt.Sprintf("mapping[%d]", i)
		col := columnIndex(header, m.Column)
		if col < 0 {
			return ImportStatus{}, fault.Validation(name+".column", "the file has no column %q", m.Column)
		}
		f, ok := sc.resolve(m.FieldID)
		if !ok || isMeta(f) || !editable(f) {
			return ImportStatus{}, fault.Validation(name+".fieldId", "%q is not a field that can be written", m.FieldID)
		}
		if taken[f.ID] {
			return ImportStatus{}, fault.Validation(name+".fieldId", "field %q is mapped twice", f.Title)
		}
		if _, dup := pl.Columns[col]; dup {
			return ImportStatus{}, fault.Validation(name+".column", "column %q is mapped twice", m.Column)
		}
		taken[f.ID], pl.Columns[col] = true, f.ID
	}
	if len(pl.Columns) == 0 {
		return ImportStatus{}, fault.Validation("mapping", "no column of the file is mapped to a field")
	}
	if in.KeyField != "" {
		if err := keyOf(sc, header, in, &pl); err != nil {
			return ImportStatus{}, err
		}
	}
	return s.enqueueImport(ctx, p, pl)
}

func columnIndex(header []string, col string) int {
	col = strings.TrimSpace(col)
	for i, h := range header {
		if strings.EqualFold(h, col) {
			return i
		}
	}
	if i, err := strconv.Atoi(col); err == nil && i >= 0 && i < len(header) && strconv.Itoa(i) == col {
		return i
	}
	return -1
}

func (s *Service) enqueueImport(ctx context.Context, p *auth.Principal, pl importPayload) (ImportStatus, error) {
	id, err := s.jobs.Enqueue(ctx, jobImport, pl, jobs.AsUser(p.UserID), jobs.MaxAttempts(importAttempts))
	if err != nil {
		return ImportStatus{}, err
	}
	return ImportStatus{ID: id, ListID: pl.ListID, Status: ExportQueued, Errors: []ImportError{}, CreatedAt: s.now().UTC()}, nil
}

// keyOf validates the key of an update import: a text or number field (or
// item_number) and the column holding it.
func keyOf(sc *schema, header []string, in ItemsImport, pl *importPayload) error {
	f, ok := sc.resolve(in.KeyField)
	if !ok || !(f.Type == field.Text || f.Type == field.Number) || (isMeta(f) && f.ID != "id") {
		return fault.Validation("keyField", "keyField must be a text or number field, or item_number")
	}
	if f.ID == "id" {
		f = sc.field(sysItemNumber)
	}
	pl.KeyField, pl.KeyCol = f.ID, -1
	if in.KeyColumn != "" {
		if pl.KeyCol = columnIndex(header, in.KeyColumn); pl.KeyCol < 0 {
			return fault.Validation("keyColumn", "the file has no column %q", in.KeyColumn)
		}
		return nil
	}
	for col, id := range pl.Columns {
		if id == f.ID {
			pl.KeyCol = col
		}
	}
	if pl.KeyCol < 0 && f.InternalName == sysItemNumber {
		pl.KeyCol = columnIndex(header, "ID")
	}
	if pl.KeyCol < 0 {
		return fault.Validation("keyColumn", "name the column that holds the key (keyColumn), or map one to %q", f.Title)
	}
	return nil
}
