package modules

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /modules.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func op(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.Admin, "modules")
	o.Description += " " + desc
	return o
}

type keyIn struct {
	Key string `path:"key" maxLength:"100" doc:"module key (the id of module.json), e.g. vendor.helpdesk"`
}

type templateIn struct {
	Body struct {
		TemplateID string `json:"templateId" maxLength:"50" doc:"base, helpdesk or comms"`
	}
}

// Register adds the JSON operations; Mount adds the streamed upload.
func (h *Handler) Register(api huma.API) {
	web.Register(api, op(http.MethodGet, "/modules", "listModules", "Installed modules",
		"Every installed module record, ordered by key: moduleKey, version (the one in force), title, description, source "+
			"(upload, deps/<file>, catalog, remote, vendor), installedAt (first installation), installedBy (login of the administrator "+
			"of the last installation or upgrade), updatedAt (last installation or upgrade), requires (of the installed version)."),
		func(ctx context.Context, _ *struct{}) (*web.Out[[]*Record], error) { return web.Reply(h.svc.List(ctx)) })

	web.Register(api, op(http.MethodGet, "/modules/templates", "moduleTemplates", "Portal templates of the set-up wizard",
		"The templates base (vendor.tasks, free), helpdesk (vendor.helpdesk, free) and comms (vendor.comms.chat, paid), with their "+
			"modules and a catalog block: status (ok when the vendor catalog of this release lists the template's modules), source "+
			"(embedded), totalModules, availableModules (free modules, plus paid ones the licence entitles: every module during a valid "+
			"trial, the key's modules patterns such as vendor.comms.* or * when licensed, none when expired or invalid) and licenceMode."),
		func(ctx context.Context, _ *struct{}) (*web.Out[[]TemplateOut], error) {
			return web.Reply(h.svc.Templates(ctx))
		})

	web.Register(api, op(http.MethodGet, "/modules/catalog/status", "moduleCatalogStatus", "Module catalog status",
		"{ vendor, local, remote, licence, templates }. vendor, local (MODULE_CATALOG_PATH) and remote (MODULE_CATALOG_URL) each "+
			"give configured, status (ok, error, not_configured), message (why a configured catalog cannot be read), modules (entries "+
			"listed) and available (entries this portal may install). licence gives mode, valid and the modules patterns in force; "+
			"templates gives per template templateId, modules, available and installed counts. The remote catalog is read with its "+
			"timeout (15 s) on every call."),
		func(ctx context.Context, _ *struct{}) (*web.Out[*CatalogStatus], error) {
			return web.Reply(h.svc.CatalogStatus(ctx))
		})

	web.Register(api, op(http.MethodPost, "/modules/install-template", "installModuleTemplate", "Install a portal template",
		"{ templateId }: base (vendor.tasks), helpdesk (vendor.helpdesk) or comms (vendor.comms.chat); anything else answers 400 "+
			"VALIDATION_ERROR. Modules come from the vendor catalog embedded in this release. A paid module the licence does not "+
			"entitle answers 403 FORBIDDEN with details.moduleKey and installs nothing; free modules are always available, and every "+
			"module during a valid trial. Each module is installed like POST /modules/install (dependencies included, one transaction "+
			"per module; an installed same version is skipped). Answer: { templateId, modules: [install result] }. Audited as "+
			"module.install_template plus one module.install / module.upgrade / module.skip per module."),
		func(ctx context.Context, in *templateIn) (*web.Out[*TemplateResult], error) {
			return web.Reply(h.svc.InstallTemplate(ctx, auth.FromContext(ctx), in.Body.TemplateID))
		})

	web.Register(api, op(http.MethodGet, "/modules/{key}/resources", "moduleResources", "Resources of an installed module",
		"{ moduleKey, version, resourceMap, installLog }. resourceMap maps the symbolic keys of module.json to the uuids of what "+
			"was created (list fields as <list key>.fields.<internalName>, keyed views as <list key>.views.<key>); installLog holds "+
			"{ at, version, message } for every step of every installation and upgrade. A malformed key answers 400, a module that "+
			"is not installed 404."),
		func(ctx context.Context, in *keyIn) (*web.Out[ResourcesOut], error) {
			return web.Reply(h.svc.Resources(ctx, in.Key))
		})

	h.documentInstall(api)
}
