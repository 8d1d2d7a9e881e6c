package jobs

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /jobs.
type Handler struct{ q *Queue }

// NewHandler builds the handler.
func NewHandler(q *Queue) *Handler { return &Handler{q: q} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	web.Register(api, web.Op(http.MethodGet, "/jobs/settings/retention", "getJobRetention", "Retention of the job journal", web.Admin, "jobs"), h.getRetention)
	put := web.Op(http.MethodPut, "/jobs/settings/retention", "setJobRetention", "Change the retention of the job journal", web.Admin, "jobs")
	put.Description += " Service jobs-cleanup deletes succeeded and failed jobs completed longer ago than retentionDays (1-3650, default 30) on its schedule."
	web.Register(api, put, h.setRetention)
	list := web.Op(http.MethodGet, "/jobs", "listJobs", "List jobs, newest first", web.Admin, "jobs")
	list.Description += " Filters: type (exact job type), status (pending, running, succeeded, failed). page is at most 1000000."
	web.Register(api, list, h.list)
	web.Register(api, web.Op(http.MethodGet, "/jobs/{id}", "getJob", "One job with its payload, result and error", web.Admin, "jobs"), h.get)
}

type listIn struct {
	web.PageQuery
	Type   string `query:"type" maxLength:"100" doc:"job type, e.g. notifications.sendEmail"`
	Status string `query:"status" enum:"pending,running,succeeded,failed," doc:"job status"`
}

func (h *Handler) list(ctx context.Context, in *listIn) (*web.PagedOut[[]*Job, web.PageMeta], error) {
	if err := CheckPage(in.Page); err != nil {
		return nil, err
	}
	rows, total, err := h.q.List(ctx, Filter{Type: in.Type, Status: in.Status}, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(rows, web.NewPageMeta(in.PageQuery, total)), nil
}

type idIn struct {
	ID string `path:"id" format:"uuid" doc:"job id"`
}

func (h *Handler) get(ctx context.Context, in *idIn) (*web.Out[*Job], error) {
	return web.Reply(h.q.Get(ctx, in.ID))
}

// JobRetention is the job journal retention.
type JobRetention struct {
	RetentionDays int `json:"retentionDays" minimum:"1" maximum:"3650" doc:"days finished jobs are kept"`
}

func (h *Handler) getRetention(ctx context.Context, _ *struct{}) (*web.Out[JobRetention], error) {
	d, err := h.q.Retention(ctx)
	if err != nil {
		return nil, err
	}
	return web.OK(JobRetention{RetentionDays: d}), nil
}

type retentionIn struct{ Body JobRetention }

func (h *Handler) setRetention(ctx context.Context, in *retentionIn) (*web.Out[JobRetention], error) {
	if err := h.q.SetRetention(ctx, in.Body.RetentionDays); err != nil {
		return nil, err
	}
	return web.OK(in.Body), nil
}
