package services

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /services.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	list := web.Op(http.MethodGet, "/services", "listServices", "List the background services", web.Admin, "services")
	list.Description += " available is false while a service cannot run: ad-sync until the directory is configured; search-crawler, core-backup and recycle-bin while their capability is not part of the build. On a new installation core-backup is enabled with a daily schedule (cronExpression \"0 1 * * *\", 01:00 server time; retention: 7 copies, see GET /admin/settings/backup); installations older than this default keep the schedule they had (off unless saved). PATCH /services/core-backup switches it."
	web.Register(api, list, h.list)
	patch := web.Op(http.MethodPatch, "/services/{key}", "updateService", "Switch a service on or off and set its schedule", web.Admin, "services")
	patch.Description += ` cronExpression: five fields (minute hour day-of-month month day-of-week, UTC) or a descriptor of the schedule editor: @hourly, @every 2h, @every 15m (at least 1m), @daily, @weekly, @monthly. A changed schedule counts from now (no catch-up run). Enabling a service that is not available is refused with 409 CONFLICT (details.reason says why). ad-sync is switched on only when the directory is configured and a live connection check (connect, bind as the service account) passes; otherwise 409 with the check's error as details.reason. notifications has no schedule.`
	web.Register(api, patch, h.update)
	run := web.Op(http.MethodPost, "/services/{key}/run", "runService", "Queue a manual run", web.Admin, "services")
	run.Description += " Answers 202 with the job id. core-backup and notifications have no manual run (400). A service that is not available is refused with 409 CONFLICT (ad-sync: directory not configured). The run does not require isEnabled. ad-sync takes an optional { deactivateMissing } override. search-crawler re-indexes every source, then runs a consistency pass that compares the rights stored with every item and file entry with the access-control registry, repairs those that differ and removes entries of resources that no longer exist (job result: rights { checked, repaired, removed })."
	web.Register(api, web.Answers(run, http.StatusAccepted), h.run)
}

func (h *Handler) list(ctx context.Context, _ *struct{}) (*web.Out[[]ServiceRecord], error) {
	return web.Reply(h.svc.List(ctx))
}

// ServicePatchBody is the body of PATCH /services/{key}; the read-only
// properties of the service's record (GET /services) are accepted and ignored.
type ServicePatchBody struct {
	web.ReadOnlyFrom[ServiceRecord]
	IsEnabled      *bool   `json:"isEnabled,omitempty"`
	CronEnabled    *bool   `json:"cronEnabled,omitempty"`
	CronExpression *string `json:"cronExpression,omitempty" maxLength:"100"`
}

type updateIn struct {
	Key  string `path:"key" maxLength:"50" doc:"service key, e.g. jobs-cleanup"`
	Body ServicePatchBody
}

func (h *Handler) update(ctx context.Context, in *updateIn) (*web.Out[ServiceRecord], error) {
	return web.Reply(h.svc.Update(ctx, in.Key, Patch{IsEnabled: in.Body.IsEnabled, CronEnabled: in.Body.CronEnabled, CronExpression: in.Body.CronExpression}))
}

// ServiceRunBody is the optional body of POST /services/{key}/run.
type ServiceRunBody struct {
	DeactivateMissing *bool `json:"deactivateMissing,omitempty" doc:"ad-sync only: overrides cronDeactivateMissing for this run"`
}

type runIn struct {
	Key  string `path:"key" maxLength:"50" doc:"service key, e.g. jobs-cleanup"`
	Body *ServiceRunBody
}

func (h *Handler) run(ctx context.Context, in *runIn) (*web.Out[ServiceRunResult], error) {
	var opts map[string]any
	if in.Body != nil && in.Body.DeactivateMissing != nil {
		opts = map[string]any{"deactivateMissing": *in.Body.DeactivateMissing}
	}
	return web.ReplyAccepted(h.svc.Run(ctx, in.Key, opts))
}
