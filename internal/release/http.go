package release

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves the release, update and Office routes and the runner's queue.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// SetReleaseBody changes the installed release version.
// The read-only properties of GET /admin/settings/release are accepted and ignored.
type SetReleaseBody struct {
	web.ReadOnlyFrom[ReleaseSettings]
	InstalledReleaseVersion string `json:"installedReleaseVersion" maxLength:"64" doc:"a version such as 1.4.2"`
}

// VersionInfo is the version the runner waits for.
type RunnerVersion struct {
	Version string `json:"version"`
}

type jobPath struct {
	ID string `path:"id" doc:"update job id (uuid)"`
}

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	tag := "release and update"
	web.Register(api, web.Op(http.MethodGet, "/admin/product", "getProduct", "Product, release version and full licence status", web.Admin, tag),
		func(ctx context.Context, _ *struct{}) (*web.Out[Product], error) {
			return web.Reply(h.svc.Product(ctx))
		})

	op := web.Op(http.MethodGet, "/admin/settings/release", "getReleaseSettings", "Release settings", web.Admin, tag)
	op.Description += ` installedReleaseVersion comes from the RELEASE file (CORE_RELEASE_FILE, default RELEASE beside the binary;
its first non-empty line) when it exists, else from the database (the assembly version until changed or updated online).`
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.Out[ReleaseSettings], error) {
		return web.Reply(h.svc.ReleaseSettings(ctx))
	})

	op = web.Op(http.MethodPut, "/admin/settings/release", "setReleaseSettings", "Change the installed release version", web.Admin, tag)
	op.Description += ` Allowed only when no RELEASE file is found (409 CONFLICT otherwise). The version must be a semantic
version such as 1.4.2 (400 otherwise).`
	web.Register(api, op, func(ctx context.Context, in *struct{ Body SetReleaseBody }) (*web.Out[ReleaseSettings], error) {
		before, _ := h.svc.ReleaseSettings(ctx)
		after, err := h.svc.SetInstalled(ctx, in.Body.InstalledReleaseVersion)
		if err == nil {
			audit.Record(ctx, audit.Entry{Action: audit.SettingsSave, ResourceType: "settings", ResourceID: "release",
				Before: map[string]any{"installedReleaseVersion": before.InstalledReleaseVersion}, After: map[string]any{"installedReleaseVersion": after.InstalledReleaseVersion}})
		}
		return web.Reply(after, err)
	})

	op = web.Op(http.MethodPost, "/admin/update/check", "checkUpdate", "Check for updates", web.Admin, tag)
	op.Description += ` Asks the vendor (GET {CORE_VENDOR_URL}/api/v1/releases/latest?channel=&platform=, 10 s timeout) for
the newest release and records lastKnownLatestVersion and lastUpdateCheckAt. Always 200: an unconfigured or unreachable vendor
is reported in upgradeBlockedReason (first applicable of vendor_not_configured, vendor_unreachable, no_newer_version,
license_invalid, runner_offline, update_in_progress) and message. Versions compare as semantic versions.`
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.Out[UpdateCheckResult], error) {
		return web.Reply(h.svc.Check(ctx))
	})

	op = web.Op(http.MethodGet, "/admin/update/runner", "getUpdateRunner", "Update runner status", web.Admin, tag)
	op.Description += ` runnerOnline is true when the runner polled the upgrade queue within the last 30 seconds.`
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.Out[UpdateRunnerStatus], error) {
		return web.Reply(h.svc.Runner(ctx))
	})

	op = web.Op(http.MethodPost, "/admin/update/start", "startUpdate", "Start an online update", web.Admin, tag)
	op.Description += ` Checks for updates (as POST /admin/update/check) and queues an update job to the vendor's latest
release: 202 with the job (status queued). Refused with 409 UPDATE_BLOCKED, details.reason = upgradeBlockedReason, when no
newer version exists, the licence is not valid, the runner is offline, the vendor is not configured or unreachable, or another
update job is queued or running. The update runner then moves the job through entitle, download, apply, restart and done (or
failed with the error in message); follow it with GET /admin/update/jobs/{id}. The API is briefly unavailable while the
service restarts.`
	web.Register(api, web.Answers(op, http.StatusAccepted), func(ctx context.Context, _ *struct{}) (*web.Out[*UpdateJob], error) {
		var actor string
		if p := auth.FromContext(ctx); p != nil {
			actor = p.UserID
		}
		j, err := h.svc.Start(ctx, actor)
		if err == nil {
			audit.Record(ctx, audit.Entry{Action: audit.UpdateStart, ResourceType: "update", ResourceID: j.ID,
				Details: map[string]any{"fromVersion": j.FromVersion, "toVersion": j.ToVersion, "channel": j.Channel}})
		}
		return web.ReplyAccepted(j, err)
	})

	web.Register(api, web.Op(http.MethodGet, "/admin/update/jobs/{id}", "getUpdateJob", "One update job", web.Admin, tag),
		func(ctx context.Context, in *jobPath) (*web.Out[*UpdateJob], error) {
			return web.Reply(h.svc.JobByID(ctx, in.ID))
		})

	web.Register(api, web.Op(http.MethodGet, "/admin/office/status", "getOfficeStatus", "Office editor status and version", web.Admin, tag),
		func(ctx context.Context, _ *struct{}) (*web.Out[OfficeStatus], error) {
			return web.OK(h.svc.Office(ctx)), nil
		})

	h.registerQueue(api)
}

func (h *Handler) registerQueue(api huma.API) {
	tag := "internal: update runner"
	note := ` For the update runner only: every request under /api/v1/internal must carry header X-Core-Update-Token equal to
CORE_UPDATE_RUNNER_TOKEN (401 UNAUTHORIZED otherwise, and always while the variable is unset). Allowed while the portal is
read-only.`
	op := web.Op(http.MethodGet, "/internal/upgrade-queue", "getUpdateQueue", "Runner: the update job in the queue", web.Public, tag)
	op.Description = `The job waiting for the runner (status queued) or being carried out by it (status running); data is
null when the queue is empty. Reading the queue changes nothing: it neither takes the job nor records the runner's
heartbeat (POST /internal/upgrade-queue/claim does both).` + note
	op.Security = []map[string][]string{{"runnerToken": {}}}
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.MaybeOut[*UpdateJob], error) {
		return web.ReplyMaybe(h.svc.Queued(ctx))
	})

	op = web.Op(http.MethodPost, "/internal/upgrade-queue/claim", "claimUpdateJob", "Runner: heartbeat and take the queued update job", web.Public, tag)
	op.Description = `Records the runner's heartbeat (runnerOnline) and moves the queued job, if any, to running / entitle;
data is null when no job waits. The answer carries what the runner needs to ask the vendor for the package.` + note
	op.Security = []map[string][]string{{"runnerToken": {}}}
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.MaybeOut[*UpdateWork], error) {
		return web.ReplyMaybe(h.svc.Claim(ctx))
	})

	op = web.Op(http.MethodGet, "/internal/upgrade-queue/version", "runnerVersion", "Runner: assembly version of the answering instance", web.Public, tag)
	op.Description = `The runner waits for this to report the new version after a restart.` + note
	op.Security = []map[string][]string{{"runnerToken": {}}}
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.Out[RunnerVersion], error) {
		return web.OK(RunnerVersion{Version: h.svc.cfg.BuildVersion}), nil
	})

	op = web.Op(http.MethodPatch, "/internal/upgrade-queue/{id}", "reportUpdateJob", "Runner: report the phase an update job reached", web.Public, tag)
	op.Description = `Phases only move forward (409 otherwise); done ends the job as succeeded and records toVersion as the
installed release (unless a RELEASE file sets it), failed ends it with message as the error.` + note
	op.Security = []map[string][]string{{"runnerToken": {}}}
	web.Register(api, op, func(ctx context.Context, in *struct {
		ID   string `path:"id" doc:"update job id (uuid)"`
		Body UpdateProgress
	}) (*web.Out[*UpdateJob], error) {
		return web.Reply(h.svc.Report(ctx, in.ID, in.Body))
	})
}
