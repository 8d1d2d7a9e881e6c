package audit

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/export"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// ExportMax is the most records one export holds.
const ExportMax = 5000

// Handler serves /admin/audit.
type Handler struct{ log *Log }

// NewHandler builds the handler.
func NewHandler(l *Log) *Handler { return &Handler{log: l} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	list := web.Op(http.MethodGet, "/admin/audit", "listAudit", "Audit log (newest first)", web.Admin, "admin-audit")
	list.Description += ` The audit log is append-only: no operation changes or deletes a record. Records: sign-ins
(auth.sign_in, auth.sign_in_failed with the login tried), ACL grants, revocations and inheritance breaks, user and
group changes, settings and service changes (secret values are never stored: they show as "[REDACTED]"), deletions,
recycle-bin restores and purges, log purges, backups and restores, module installs (module.install, module.upgrade,
module.skip, module.install_template; a refused installation is module.install with outcome failure), licence activations. Each record
names the actor (id, login, client address), the action, the resource (type and id), the outcome and details (before /
after where it matters).`
	web.Register(api, list, h.list)
	exp := web.Op(http.MethodGet, "/admin/audit/export", "exportAudit", "Export the audit log (json or csv)", web.Admin, "admin-audit")
	exp.Description += ` The same filters as GET /admin/audit; at most 5000 records, newest first, streamed as a file
download. format=json gives a JSON array of records, format=csv one line per record with a header line (control characters — C0 including CR, LF, tab, VT and FF; DEL; C1 including NEL U+0085 — and the separators U+2028 and U+2029 inside a cell are written as \n, \r, \t or \uXXXX, backslashes kept as they are; cells starting with =, +, -, @ get a leading ' so that spreadsheets never read them as formulas); any other
format is refused with 400 VALIDATION_ERROR.`
	exp.Responses = map[string]*huma.Response{"200": web.FileAnswer("the records", "application/json", "text/csv")}
	web.Register(api, exp, h.export)
}

// FilterQuery holds the filters shared by list and export.
type FilterQuery struct {
	Actor        string `query:"actor" maxLength:"200" doc:"user id or login"`
	Action       string `query:"action" maxLength:"100" doc:"the exact action (acl.grant), or a prefix ending in '.' (acl.)"`
	ResourceType string `query:"resourceType" maxLength:"50" doc:"the type of the resource acted on (user, group, acl, list, settings, …)"`
	ResourceID   string `query:"resourceId" maxLength:"200" doc:"the id of the resource acted on"`
	From         string `query:"from" maxLength:"40" doc:"RFC 3339 time, inclusive"`
	To           string `query:"to" maxLength:"40" doc:"RFC 3339 time, inclusive"`
}

func (q FilterQuery) filter() (Filter, error) {
	from, err := web.ParseTime("from", q.From)
	if err != nil {
		return Filter{}, err
	}
	to, err := web.ParseTime("to", q.To)
	if err != nil {
		return Filter{}, err
	}
	return Filter{Actor: q.Actor, Action: q.Action, ResourceType: q.ResourceType, ResourceID: q.ResourceID, From: from, To: to}, nil
}

type listIn struct {
	web.PageQuery
	FilterQuery
}

func (h *Handler) list(ctx context.Context, in *listIn) (*web.PagedOut[[]Row, web.PageMeta], error) {
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

type exportIn struct {
	FilterQuery
	Format string `query:"format" maxLength:"10" default:"json" doc:"json or csv"`
}

func (h *Handler) export(ctx context.Context, in *exportIn) (*huma.StreamResponse, error) {
	if in.Format != "json" && in.Format != "csv" {
		return nil, fault.Validation("format", "format must be json or csv")
	}
	f, err := in.filter()
	if err == nil {
		err = f.check()
	}
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hc huma.Context) {
		w := hc.BodyWriter()
		var werr error
		if in.Format == "csv" {
			web.Attachment(hc, "audit", in.Format, "text/csv; charset=utf-8")
			cw := csv.NewWriter(w)
			_ = cw.Write([]string{"at", "actorLogin", "actorId", "actorAddress", "action", "resourceType", "resourceId", "outcome", "details", "correlationId"})
			werr = h.log.Each(ctx, f, ExportMax, func(r Row) error {
				d, _ := json.Marshal(r.Details)
				rec := []string{r.At.Format(time.RFC3339Nano), r.ActorLogin, r.ActorID, r.ActorAddress, r.Action, r.ResourceType, r.ResourceID, r.Outcome, string(d), r.CorrelationID}
				for i := range rec {
					rec[i] = export.Neutralise(export.EscapeControls(rec[i])) // logins tried etc. are attacker-controlled
				}
				return cw.Write(rec)
			})
			cw.Flush()
		} else {
			web.Attachment(hc, "audit", in.Format, "application/json")
			werr = web.StreamJSONArray(w, func(yield func(Row) error) error { return h.log.Each(ctx, f, ExportMax, yield) })
		}
		if werr != nil {
			slog.ErrorContext(ctx, "audit export", "err", werr)
		}
	}}, nil
}
