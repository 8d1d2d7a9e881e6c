package licence

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /admin/license.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// ActivateBody is the activation request.
type ActivateBody struct {
	LicenseKey string `json:"licenseKey" minLength:"1" maxLength:"65536" doc:"the key base64url(payload).base64url(signature), or the whole content of a key file (the first non-empty line not starting with # is the key)"`
}

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/admin/license", "getLicense", "Licence status", web.Admin, "licence")
	op.Description += ` Without a key the portal runs in trial mode for 30 days from its first start (valid=true, every paid
module available for evaluation); after that mode=expired and valid=false: every write answers 423 LICENSE_READ_ONLY
until a key is activated. daysRemaining counts whole days, rounded up. During the last 7 days of the trial or of a key
every write of a signed-in user answers with a header Warning: 299 - "… expires in N days …". Monitoring without a
token reads mode, valid, daysRemaining and expiresAt from the licence block of GET /health and GET /ready (whose
status codes never depend on the licence) and the gauges coreportal_licence_valid and
coreportal_licence_days_remaining of /metrics (CORE_METRICS_ADDR).`
	web.Register(api, op, func(ctx context.Context, _ *struct{}) (*web.Out[LicenseStatus], error) {
		return web.Reply(h.svc.Refresh(ctx))
	})

	op = web.Op(http.MethodPost, "/admin/license/activate", "activateLicense", "Activate a licence key", web.Admin, "licence")
	op.Description += ` Checks, in order, the key's form, its Ed25519 signature (CORE_LICENSE_PUBLIC_KEY, else the vendor's
built-in key), expiry, install binding (installBinding of GET /admin/license, or "*"), channel and platform (empty or "*" =
any). A refused key answers 400 VALIDATION_ERROR with details.field=licenseKey and details.reason one of format, signature,
expired, installBinding, channel, platform, and changes nothing. An accepted key is written to {data_dir}/license.key (mode
0600, atomically) and to the database, and applies at once on every API instance (over the bus); background workers reload
it within a minute. Allowed while the portal is read-only. The same is done by the command
coreportal license activate --key-file F.`
	web.Register(api, op, func(ctx context.Context, in *struct{ Body ActivateBody }) (*web.Out[LicenseActivationResult], error) {
		return web.Reply(h.svc.Activate(ctx, in.Body.LicenseKey))
	})
}
