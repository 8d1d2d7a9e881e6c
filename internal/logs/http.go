package logs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/applog"
	"coreportal/internal/export"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// ExportMax is the most records one export holds (SPEC.md Limits).
const ExportMax = 5000

// Handler serves /admin/logs.
type Handler struct{ log *Log }

// NewHandler builds the handler.
func NewHandler(l *Log) *Handler { return &Handler{log: l} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	list := web.Op(http.MethodGet, "/admin/logs", "listLogs", "Application log (newest first)", web.Admin, "admin-logs")
	list.Description += ` The service's own records (separate from the audit log), written to the database
asynchronously in batches: a record appears within about a second. Each has id, at, level (debug, info, warn, error),
process (api: request handling; worker: jobs and background loops), instance, category (http: request lines; job:
records of a running job; applog, audit and the like when the code names one; app otherwise), message, correlationId
(the request's X-Request-Id, or the job), jobId and attrs. With redactEnabled, passwords, tokens, cookies,
Authorization headers, LDAP bind passwords and e-mail addresses are masked before storage.`
	web.Register(api, list, h.list)
	web.Register(api, web.Op(http.MethodGet, "/admin/logs/settings", "getLogSettings", "Application log settings and this instance's writer counters", web.Admin, "admin-logs"), h.getSettings)
	put := web.Op(http.MethodPut, "/admin/logs/settings", "putLogSettings", "Change the application log settings", web.Admin, "admin-logs")
	put.Description += ` Fields left out keep their value. Applied at once on this instance and within 10 s on the
others. minLevel and includeCategories decide what is written from now on; retentionDays, maxSizeMb and maxRows are
applied by the purge (POST /admin/logs/purge, and every 10 minutes by the workers). Request lines (category http,
written with CORE_ACCESS_LOG=true) below warn are stored only when includeCategories names http: storing every request
line costs each request a few microseconds and a row in a batched INSERT.`
	web.Register(api, put, h.putSettings)
	purge := web.Op(http.MethodPost, "/admin/logs/purge", "purgeLogs", "Purge by age and size ceiling now", web.Admin, "admin-logs")
	purge.Description += ` Deletes records older than retentionDays, then the oldest above maxRows, then the oldest
above maxSizeMb (the size of a record is its message and attributes plus a fixed overhead). Recorded in the audit log.`
	web.Register(api, purge, h.purge)
	web.Register(api, web.Op(http.MethodPost, "/admin/logs/clear", "clearLogs", "Delete every application log record (recorded in the audit log)", web.Admin, "admin-logs"), h.clear)
	exp := web.Op(http.MethodGet, "/admin/logs/export", "exportLogs", "Export the application log (txt or json)", web.Admin, "admin-logs")
	exp.Description += ` The filters of GET /admin/logs; at most 5000 records, newest first, streamed as a file download.
format=txt gives one line per record ("<time> <LEVEL> [<process>/<category>] <message> key=value … correlationId=…",
attribute values as JSON): no control character (C0 including CR, LF, tab, VT and FF; DEL; C1 including NEL U+0085) and no
line or paragraph separator (U+2028, U+2029) is written raw; each becomes \n, \r, \t or \uXXXX, and a backslash in
a message, a key or a name becomes \\ (attribute values keep JSON's own escapes);
format=json a JSON array of records; any other format is refused with 400 VALIDATION_ERROR.`
	exp.Responses = map[string]*huma.Response{"200": web.FileAnswer("the records", "application/json", "text/plain")}
	web.Register(api, exp, h.export)
}

// FilterQuery holds the filters shared by list and export.
type FilterQuery struct {
	Level         string `query:"level" maxLength:"40" doc:"debug, info, warn or error (that level and above), or a comma-separated list of exact levels"`
	Process       string `query:"process" enum:"api,worker," doc:"api (request handling) or worker (jobs and background loops)"`
	Category      string `query:"category" maxLength:"40" doc:"http (request lines), job (records of a running job), app, or a category the code names (applog, audit, …); case-insensitive"`
	Q             string `query:"q" maxLength:"200" doc:"case-insensitive text in the message or attributes"`
	CorrelationID string `query:"correlationId" maxLength:"100" doc:"a request's X-Request-Id, or a job's id"`
	JobID         string `query:"jobId" maxLength:"100" doc:"a job id (UUID); anything else is 400 VALIDATION_ERROR"`
	From          string `query:"from" maxLength:"40" doc:"RFC 3339 time, inclusive"`
	To            string `query:"to" maxLength:"40" doc:"RFC 3339 time, inclusive"`
}

func (q FilterQuery) filter() (Filter, error) {
	f := Filter{Process: q.Process, Category: strings.ToLower(q.Category), Q: q.Q, CorrelationID: q.CorrelationID, JobID: q.JobID}
	if q.Level != "" {
		parts := strings.Split(q.Level, ",")
		for _, p := range parts {
			if _, ok := applog.ParseLevel(strings.TrimSpace(p)); !ok {
				return Filter{}, fault.Validation("level", "level must be debug, info, warn or error (or a comma-separated list of them)")
			}
		}
		if len(parts) == 1 {
			f.MinLevel = strings.TrimSpace(parts[0])
		} else {
			for _, p := range parts {
				l, _ := applog.ParseLevel(strings.TrimSpace(p))
				f.Levels = append(f.Levels, applog.LevelName(l))
			}
		}
	}
	if q.JobID != "" {
		id, ok := store.CanonicalUUID(q.JobID)
		if !ok {
			return Filter{}, fault.Validation("jobId", "jobId must be a UUID")
		}
		f.JobID = id
	}
	var err error
	if f.From, err = web.ParseTime("from", q.From); err != nil {
		return Filter{}, err
	}
	if f.To, err = web.ParseTime("to", q.To); err != nil {
		return Filter{}, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return Filter{}, fault.Validation("to", "to must not be before from")
	}
	return f, nil
}

type listIn struct {
	web.PageQuery
	FilterQuery
}

func (h *Handler) list(ctx context.Context, in *listIn) (*web.PagedOut[[]applog.Entry, web.PageMeta], error) {
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	rows, total, err := h.log.List(ctx, f, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(rows, web.NewPageMeta(in.PageQuery, total)), nil
}

// SettingsOut is the settings with the writer's counters of this instance.
type SettingsOut struct {
	applog.Settings
	Stats applog.Stats `json:"stats" doc:"this instance's writer counters since it started (queue, dropped, written)"`
}

func (h *Handler) getSettings(ctx context.Context, _ *struct{}) (*web.Out[SettingsOut], error) {
	s, err := h.log.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return web.OK(SettingsOut{Settings: s, Stats: h.log.Stats()}), nil
}

// LogSettingsIn is the body of PUT /admin/logs/settings; the read-only
// properties of the GET (stats) are accepted and ignored.
type LogSettingsIn struct {
	web.ReadOnlyFrom[SettingsOut]
	MinLevel          *string   `json:"minLevel,omitempty" enum:"debug,info,warn,error"`
	IncludeCategories *[]string `json:"includeCategories,omitempty" maxItems:"50"`
	RedactEnabled     *bool     `json:"redactEnabled,omitempty"`
	RetentionDays     *int      `json:"retentionDays,omitempty" minimum:"1" maximum:"3650"`
	MaxSizeMb         *int      `json:"maxSizeMb,omitempty" minimum:"1" maximum:"102400"`
	MaxRows           *int      `json:"maxRows,omitempty" minimum:"100" maximum:"100000000"`
}

type putIn struct{ Body LogSettingsIn }

func (h *Handler) putSettings(ctx context.Context, in *putIn) (*web.Out[SettingsOut], error) {
	s, err := h.log.Settings(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	if b.MinLevel != nil {
		s.MinLevel = *b.MinLevel
	}
	if b.IncludeCategories != nil {
		s.IncludeCategories = *b.IncludeCategories
	}
	if b.RedactEnabled != nil {
		s.RedactEnabled = *b.RedactEnabled
	}
	if b.RetentionDays != nil {
		s.RetentionDays = *b.RetentionDays
	}
	if b.MaxSizeMb != nil {
		s.MaxSizeMb = *b.MaxSizeMb
	}
	if b.MaxRows != nil {
		s.MaxRows = *b.MaxRows
	}
	if s, err = h.log.SaveSettings(ctx, s); err != nil {
		return nil, err
	}
	return web.OK(SettingsOut{Settings: s, Stats: h.log.Stats()}), nil
}

// LogNoOptions is the body of an action that takes none: absent, or a JSON
// object without fields; malformed JSON or another type is 400.
type LogNoOptions struct{}

type actionIn struct {
	Body *LogNoOptions
}

func (h *Handler) purge(ctx context.Context, _ *actionIn) (*web.Out[PurgeResult], error) {
	return web.Reply(h.log.PurgeNow(ctx))
}

// ClearResult says how many records a clear deleted.
type ClearResult struct {
	Deleted int64 `json:"deleted"`
}

func (h *Handler) clear(ctx context.Context, _ *actionIn) (*web.Out[ClearResult], error) {
	n, err := h.log.Clear(ctx)
	return web.Reply(ClearResult{Deleted: n}, err)
}

type exportIn struct {
	FilterQuery
	Format string `query:"format" maxLength:"10" default:"txt" doc:"txt or json"`
}

func (h *Handler) export(ctx context.Context, in *exportIn) (*huma.StreamResponse, error) {
	if in.Format != "txt" && in.Format != "json" {
		return nil, fault.Validation("format", "format must be txt or json")
	}
	f, err := in.filter()
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		w := hc.BodyWriter()
		var werr error
		if in.Format == "txt" {
			web.Attachment(hc, "app-log", in.Format, "text/plain; charset=utf-8")
			werr = h.log.Each(ctx, f, ExportMax, func(e applog.Entry) error {
				_, err := fmt.Fprintln(w, TextLine(e))
				return err
			})
		} else {
			web.Attachment(hc, "app-log", in.Format, "application/json")
			werr = web.StreamJSONArray(w, func(yield func(applog.Entry) error) error { return h.log.Each(ctx, f, ExportMax, yield) })
		}
		if werr != nil {
			slog.ErrorContext(ctx, "application log export", "category", "applog", "err", werr)
		}
	}}, nil
}

// TextLine renders a record as one line of text. Every value is escaped
// with export.EscapeText (attribute values are JSON, escaped with
// export.EscapeControls): no control character (C0 with CR, LF, tab, VT and
// FF; DEL; C1 with NEL) and no Unicode line or paragraph separator is
// written raw, so one record is always exactly one line.
func TextLine(e applog.Entry) string {
	var b strings.Builder
	b.WriteString(e.At.Format(time.RFC3339Nano))
	b.WriteString(" " + export.EscapeText(strings.ToUpper(e.Level)) + " [" + export.EscapeText(e.Process) + "/" + export.EscapeText(e.Category) + "] ")
	b.WriteString(export.EscapeText(e.Message))
	keys := make([]string, 0, len(e.Attrs))
	for k := range e.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(e.Attrs[k])
		b.WriteString(" " + export.EscapeText(k) + "=" + export.EscapeControls(string(v)))
	}
	if e.CorrelationID != "" {
		b.WriteString(" correlationId=" + export.EscapeText(e.CorrelationID))
	}
	if e.JobID != "" {
		b.WriteString(" jobId=" + export.EscapeText(e.JobID))
	}
	return b.String()
}
