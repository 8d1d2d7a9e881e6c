package surveys

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Handler serves /surveys.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func op(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.User, "surveys")
	o.Description = desc
	return o
}

const rightsNote = " 400 VALIDATION_ERROR when the survey id (or export id) is not a UUID (details.field id or exportId), 404 NOT_FOUND when the survey does not exist (or is in the recycle bin), 403 FORBIDDEN when it exists and the caller lacks the right."

// Register adds the Huma operations.
func (h *Handler) Register(api huma.API) {
	web.Register(api, op(http.MethodGet, "/surveys", "listSurveys", "Surveys of a node",
		"View on the node (404 unknown node, 403 without view). canCreate = edit on the node. items: the surveys the caller can view, "+
			"oldest first; drafts only for callers with edit on them. answerCount is the number of responses, shown only to callers with edit on the survey (results need edit), null otherwise; hasAnswered tells whether the caller answered (also in anonymous surveys)."), h.catalog)
	web.Register(api, web.Answers(op(http.MethodPost, "/surveys", "createSurvey", "Create a survey",
		"Edit on the node. Creates a draft. slug: lowercase letters, digits and hyphens, at most 100 characters, unique per node (409 CONFLICT), "+
			"\"new\" is reserved. title 1-200 characters, description up to 4000. addToSideMenu=true adds an item to the node's side menu that follows the survey's "+
			"title and path and is removed when the flag is cleared or the survey deleted. definition (omitted: no questions, not anonymous; null: 400 VALIDATION_ERROR details.field=definition, also in PATCH): { anonymous, questions[] } with questions "+
			"{ id, type, title, required, options[] }: ids 1-64 letters, digits, _ or - and unique (question ids in the survey, option ids in the question); "+
			"type single, multiple, text, number, date, user or users; options (1-100, text 1-500) only and always on single and multiple; at most 200 questions; "+
			"question titles up to 1000 characters. Errors name the part in details.field, e.g. definition.questions[1].options[0].id."), http.StatusCreated), h.create)
	web.Register(api, web.MayConflict(op(http.MethodGet, "/surveys/{id}", "getSurvey", "A survey",
		"Without take: the card with its definition; view on the survey (a draft needs edit)."+rightsNote+
			" With take=true: the taking view { id, title, description, anonymous, questions, hasAnswered }, no results; needs view on the survey and on its node "+
			"and status open (409 CONFLICT otherwise).")), h.get)
	web.Register(api, op(http.MethodPatch, "/surveys/{id}", "updateSurvey", "Change a survey",
		"Edit on the survey."+rightsNote+" Keys given replace the stored ones: title, slug (unique per node, 409), description, addToSideMenu, definition (whole). "+
			"After the first answer the definition is locked: a different definition (questions or anonymous) is 409 CONFLICT with details.field=definition; "+
			"sending the same definition back is accepted; title, slug, description and addToSideMenu stay editable. Duplicate the survey to change its questions."), h.update)
	web.Register(api, op(http.MethodDelete, "/surveys/{id}", "deleteSurvey", "Move a survey to the recycle bin",
		"Delete on the survey."+rightsNote+" One entry of kind survey in the node's recycle bin; responses are kept and come back with a restore "+
			"(POST /nodes/{nodeId}/recycle-bin/{entryId}/restore, 409 when the slug was taken meanwhile); the side-menu item is removed and restored with it. Purging deletes the responses for good."), h.remove)
	for _, t := range []struct{ action, summary, desc string }{
		{"publish", "Publish a survey", "draft → open; answers are accepted. Needs at least one question (400 VALIDATION_ERROR, details.field=definition.questions)."},
		{"close", "Close a survey", "open → closed; collection of answers stops."},
		{"reopen", "Reopen a survey", "closed → open."},
	} {
		web.Register(api, op(http.MethodPost, "/surveys/{id}/"+t.action, t.action+"Survey", t.summary,
			"Edit on the survey."+rightsNote+" "+t.desc+" Any other state: 409 CONFLICT. Answers the card."), h.transition(t.action))
	}
	web.Register(api, web.Answers(op(http.MethodPost, "/surveys/{id}/duplicate", "duplicateSurvey", "Duplicate a survey",
		"Edit on the survey and on its node."+rightsNote+" Creates a new draft on the same node with the same description and definition, "+
			"title \"<title> (copy)\", slug <slug>-copy (then -copy-2, -copy-3 …), addToSideMenu false and no answers. The source is unchanged. Answers 201 with the new card."), http.StatusCreated), h.duplicate)
	submit := op(http.MethodPost, "/surveys/{id}/submit", "submitSurvey", "Answer a survey",
		"View on the survey and on its node, status open (409 CONFLICT otherwise)."+rightsNote+
			" Unknown question ids, option ids that do not exist, users that do not exist, "+
			"other shapes and missing required answers are 400 VALIDATION_ERROR with details.field=answers.<questionId> and details.questionId. "+
			"One response per user: a second one is 409 CONFLICT (also when two arrive at once). "+
			"Anonymous surveys store no user id and no name with the response and only the day it arrived; one response per user is enforced with a "+
			"separate mark keyed by HMAC-SHA256(server secret, survey id and user id), which says that a user answered but never what. Users chosen in user and users questions are answers, not respondents, and keep their names. Answers 201 { surveyId, submitted: true }.")
	// the body is checked by the survey's rules (numbers beyond the float64
	// range included), not by the generic decoder
	submit.SkipValidateBody = true
	web.Register(api, web.Answers(submit, http.StatusCreated), h.submit)
	web.Register(api, op(http.MethodGet, "/surveys/{id}/stats", "surveyStats", "Survey statistics",
		"Edit on the survey."+rightsNote+" Per question: answered (responses answering it); single/multiple: every option with count and share "+
			"(count / answered); number: min, max, mean, median; date: earliest and latest date; user/users: the 10 most chosen users. "+
			"Computed from running counts kept at submit time and index range scans, in milliseconds at 100,000 responses."), h.stats)
	web.Register(api, op(http.MethodGet, "/surveys/{id}/responses", "surveyResponses", "Survey responses",
		"Edit on the survey."+rightsNote+" One row per response in submission order: number, respondent { userId, display } and submittedAt "+
			"(both null in anonymous surveys), answers (in the shapes of the question types) and values (readable text) by question id; columns lists the questions in order. "+
			"Paged: page, limit (1-500, default 50); meta { page, limit, total, totalPages }."), h.responses)
	web.Register(api, web.Answers(op(http.MethodPost, "/surveys/{id}/export", "exportSurvey", "Export responses to XLSX",
		"Edit on the survey."+rightsNote+" Queues a background job (202) and answers the export { id, status: queued, … }. The workbook has one sheet "+
			"\"Responses\": a header row, then one row per response: number, respondent name and submission time (not in anonymous surveys), one column per question. "+
			"Numbers are numeric cells, dates date cells (yyyy-mm-dd), other answers text (option texts and names; several values joined with \"; \"). "+
			"Text starting with =, +, -, @, tab or CR is prefixed with ' so that spreadsheets never read it as a formula. The file is kept as long as the job "+
			"(job journal retention, service jobs-cleanup)."), http.StatusAccepted), h.export)
	web.Register(api, op(http.MethodGet, "/surveys/{id}/export/{exportId}", "surveyExportStatus", "Export status",
		"Edit on the survey."+rightsNote+" status queued, running, done (fileName, rows, size) or failed (error). 404 for ids that are not exports of this survey."), h.exportState)
	doc := op(http.MethodGet, "/surveys/{id}/export/{exportId}/download", "downloadSurveyExport", "Download an export",
		"Edit on the survey."+rightsNote+" The XLSX file (Content-Disposition: attachment); 409 CONFLICT until the export is done, 404 once retention removed it. Range requests are served as for file downloads (overlapping and adjacent ranges coalesced, more than 16 ranges or a multipart answer larger than the file answered 200 with the whole file, unsatisfiable sets such as bytes=-0 416 with Content-Range: bytes */size).")
	doc.Responses = map[string]*huma.Response{"200": web.FileAnswer("the workbook",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")}
	doc = web.MayConflict(doc)
	api.OpenAPI().AddOperation(&doc)
}

// Mount adds the plain net/http download route (a streamed body).
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+web.Prefix+"/surveys/{id}/export/{exportId}/download", h.download)
}

type surveyNodeQuery struct {
	NodeID string `query:"nodeId" required:"true" doc:"node id"`
}

func (h *Handler) catalog(ctx context.Context, in *surveyNodeQuery) (*web.Out[SurveyCatalog], error) {
	return web.Reply(h.svc.Catalog(ctx, auth.FromContext(ctx), in.NodeID))
}

type surveyCreateIn struct {
	Body struct {
		NodeID        string       `json:"nodeId"`
		Slug          string       `json:"slug"`
		Title         string       `json:"title"`
		Description   string       `json:"description,omitempty"`
		AddToSideMenu bool         `json:"addToSideMenu,omitempty"`
		Definition    definitionIn `json:"definition,omitempty" required:"false" doc:"default when omitted: no questions, not anonymous; null is 400"`
	}
}

// definitionIn is a definition in a request body that tells an omitted key
// from an explicit null: a survey always has a definition object, so null
// is refused (400 details.field=definition) while omitting it keeps the
// default (create) or the stored one (update).
type definitionIn struct {
	SurveyDefinition
	set, null bool
}

func (d *definitionIn) UnmarshalJSON(b []byte) error {
	d.set = true
	if string(bytes.TrimSpace(b)) == "null" {
		d.null = true
		return nil
	}
	return json.Unmarshal(b, &d.SurveyDefinition)
}

// get returns the definition given (nil when omitted) or 400 for null.
func (d *definitionIn) get() (*SurveyDefinition, error) {
	if d.null {
		return nil, fault.Validation("definition", "definition must be an object { anonymous, questions }, not null; omit it for the default")
	}
	if !d.set {
		return nil, nil
	}
	return &d.SurveyDefinition, nil
}

func (h *Handler) create(ctx context.Context, in *surveyCreateIn) (*web.Out[SurveyCard], error) {
	b := in.Body
	def, err := b.Definition.get()
	if err != nil {
		return nil, err
	}
	ns := NewSurvey{NodeID: b.NodeID, Slug: b.Slug, Title: b.Title, Description: b.Description, AddToSideMenu: b.AddToSideMenu}
	if def != nil {
		ns.Definition = *def
	}
	return web.ReplyCreated(h.svc.Create(ctx, auth.FromContext(ctx), ns))
}

type SurveyIDParams struct {
	ID string `path:"id" doc:"survey id"`
}

type surveyGetIn struct {
	SurveyIDParams
	Take bool `query:"take" doc:"true: the taking view (status open only)"`
}

func (h *Handler) get(ctx context.Context, in *surveyGetIn) (*web.Out[any], error) {
	p := auth.FromContext(ctx)
	if in.Take {
		v, err := h.svc.Take(ctx, p, in.ID)
		return web.Reply[any](v, err)
	}
	c, err := h.svc.Get(ctx, p, in.ID)
	return web.Reply[any](c, err)
}

type surveyUpdateIn struct {
	SurveyIDParams
	Body struct {
		web.ReadOnlyFrom[SurveyCard]
		Title         *string      `json:"title,omitempty"`
		Slug          *string      `json:"slug,omitempty"`
		Description   *string      `json:"description,omitempty"`
		AddToSideMenu *bool        `json:"addToSideMenu,omitempty"`
		Definition    definitionIn `json:"definition,omitempty" required:"false" doc:"the whole definition; null is 400"`
	}
}

func (h *Handler) update(ctx context.Context, in *surveyUpdateIn) (*web.Out[SurveyCard], error) {
	b := in.Body
	def, err := b.Definition.get()
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Update(ctx, auth.FromContext(ctx), in.ID, Patch{Title: b.Title, Slug: b.Slug, Description: b.Description,
		AddToSideMenu: b.AddToSideMenu, Definition: def}))
}

func (h *Handler) remove(ctx context.Context, in *SurveyIDParams) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, auth.FromContext(ctx), in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

func (h *Handler) transition(action string) func(context.Context, *SurveyIDParams) (*web.Out[SurveyCard], error) {
	return func(ctx context.Context, in *SurveyIDParams) (*web.Out[SurveyCard], error) {
		return web.Reply(h.svc.Transition(ctx, auth.FromContext(ctx), in.ID, action))
	}
}

func (h *Handler) duplicate(ctx context.Context, in *SurveyIDParams) (*web.Out[SurveyCard], error) {
	return web.ReplyCreated(h.svc.Duplicate(ctx, auth.FromContext(ctx), in.ID))
}

// submitAnswers decodes the answers keeping numbers as written
// (json.Number), so that a literal out of the float64 range (1e400) is
// refused by the question's rules with its id, not by the JSON decoder.
type submitAnswers map[string]any

func (a *submitAnswers) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return fault.Validation("answers", "answers must be an object of answers by question id")
	}
	*a = m
	return nil
}

type surveySubmitIn struct {
	SurveyIDParams
	Body struct {
		Answers submitAnswers `json:"answers" doc:"answers by question id, by question type: single { optionId }, multiple { optionIds: [] }, text { text } (up to 10,000 characters, trimmed), number { value } (a finite number with |value| <= 1e15; a numeric string is accepted), date { date: YYYY-MM-DD }, user { userId, display? }, users { users: [{ userId, display? }] } (up to 100; display is ignored: the server stores the user's current name). null, \"\" and [] mean no answer"`
	}
}

func (h *Handler) submit(ctx context.Context, in *surveySubmitIn) (*web.Out[SurveySubmitResult], error) {
	var answers map[string]any
	if in.Body.Answers != nil {
		answers = in.Body.Answers
	}
	return web.ReplyCreated(h.svc.Submit(ctx, auth.FromContext(ctx), in.ID, answers))
}

func (h *Handler) stats(ctx context.Context, in *SurveyIDParams) (*web.Out[SurveyStats], error) {
	return web.Reply(h.svc.Stats(ctx, auth.FromContext(ctx), in.ID))
}

type surveyResponsesIn struct {
	SurveyIDParams
	web.PageQuery
}

func (h *Handler) responses(ctx context.Context, in *surveyResponsesIn) (*web.PagedOut[SurveyResponsesPage, web.PageMeta], error) {
	page, total, err := h.svc.Responses(ctx, auth.FromContext(ctx), in.ID, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(page, web.NewPageMeta(in.PageQuery, int(total))), nil
}

func (h *Handler) export(ctx context.Context, in *SurveyIDParams) (*web.Out[SurveyExportStatus], error) {
	return web.ReplyAccepted(h.svc.Export(ctx, auth.FromContext(ctx), in.ID))
}

type surveyExportIn struct {
	SurveyIDParams
	ExportID string `path:"exportId" doc:"export id"`
}

func (h *Handler) exportState(ctx context.Context, in *surveyExportIn) (*web.Out[SurveyExportStatus], error) {
	return web.Reply(h.svc.ExportState(ctx, auth.FromContext(ctx), in.ID, in.ExportID))
}

func (h *Handler) download(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	st, rc, err := h.svc.Download(r.Context(), p, r.PathValue("id"), r.PathValue("exportId"))
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	defer rc.Close()
	hd := w.Header()
	hd.Set("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": st.FileName}))
	var modified time.Time
	if st.CompletedAt != nil {
		modified = *st.CompletedAt
	}
	web.ServeContent(w, r, modified, rc, rc.Size())
}
