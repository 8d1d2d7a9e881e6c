package modules

import (
	"context"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// template is a portal template of the set-up wizard; its modules are the
// vendor catalog entries that name it.
type template struct {
	ID, Title, Description string
}

var templates = []template{
	{ID: "base", Title: "Base portal", Description: "The base modules every portal starts with: team tasks."},
	{ID: "helpdesk", Title: "Helpdesk", Description: "A service desk: tickets, knowledge base, how-to page and an agents group (module vendor.helpdesk)."},
	{ID: "comms", Title: "Communications", Description: "Team chat: channels and messages (module vendor.comms.chat, paid)."},
}

// TemplateOut is one template as GET /modules/templates shows it.
type TemplateOut struct {
	ID          string            `json:"id" enum:"base,helpdesk,comms"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Installed   bool              `json:"installed" doc:"every module of the template is installed"`
	Modules     []TemplateModule  `json:"modules"`
	Catalog     TemplateCatalogIn `json:"catalog"`
}

// TemplateModule is a module of a template and whether it can be installed.
type TemplateModule struct {
	ModuleKey        string `json:"moduleKey"`
	Version          string `json:"version"`
	Title            string `json:"title"`
	IsFree           bool   `json:"isFree"`
	Available        bool   `json:"available" doc:"free, or entitled by the licence (every module during a valid trial)"`
	InstalledVersion string `json:"installedVersion,omitempty"`
}

// TemplateCatalogIn is the catalog block of a template.
type TemplateCatalogIn struct {
	Status           string `json:"status" enum:"ok,unavailable" doc:"ok: the vendor catalog of this release lists the template's modules"`
	Source           string `json:"source" doc:"always embedded: the vendor catalog ships inside the binary"`
	TotalModules     int    `json:"totalModules"`
	AvailableModules int    `json:"availableModules" doc:"modules the licence lets this portal install"`
	LicenceMode      string `json:"licenceMode" doc:"trial, licensed, expired or invalid"`
}

// Templates answers GET /modules/templates.
func (s *Service) Templates(ctx context.Context) ([]TemplateOut, error) {
	entries, err := s.vendor.entries(ctx)
	if err != nil {
		return nil, err
	}
	installed, err := s.recordMap(ctx)
	if err != nil {
		return nil, err
	}
	mode := s.lic.Current().Mode
	out := make([]TemplateOut, 0, len(templates))
	for _, t := range templates {
		o := TemplateOut{ID: t.ID, Title: t.Title, Description: t.Description, Installed: true, Modules: []TemplateModule{},
			Catalog: TemplateCatalogIn{Status: "ok", Source: "embedded", LicenceMode: mode}}
		for _, e := range entries {
			if e.Template != t.ID {
				continue
			}
			tm := TemplateModule{ModuleKey: e.ID, Version: e.Version, Title: e.Title, IsFree: e.IsFree, Available: e.IsFree || s.lic.Entitled(e.ID)}
			if r := installed[e.ID]; r != nil {
				tm.InstalledVersion = r.Version
			}
			o.Installed = o.Installed && tm.InstalledVersion != ""
			o.Catalog.TotalModules++
			if tm.Available {
				o.Catalog.AvailableModules++
			}
			o.Modules = append(o.Modules, tm)
		}
		if len(o.Modules) == 0 {
			o.Installed, o.Catalog.Status = false, "unavailable"
		}
		out = append(out, o)
	}
	return out, nil
}

// TemplateResult is the answer of POST /modules/install-template.
type TemplateResult struct {
	TemplateID string    `json:"templateId"`
	Modules    []*Result `json:"modules" doc:"one install result per module of the template, in catalog order"`
}

// InstallTemplate installs the vendor modules of a template (each with
// its dependencies, one transaction per module). A paid module the licence
// does not entitle answers 403 before anything is installed.
func (s *Service) InstallTemplate(ctx context.Context, p *auth.Principal, id string) (*TemplateResult, error) {
	known := false
	for _, t := range templates {
		known = known || t.ID == id
	}
	if !known {
		return nil, fault.Validation("templateId", "templateId must be base, helpdesk or comms")
	}
	entries, err := s.vendor.entries(ctx)
	if err != nil {
		return nil, err
	}
	var pkgs []*Package
	for _, e := range entries {
		if e.Template != id {
			continue
		}
		pkg, err := s.vendor.fetch(ctx, e)
		if err != nil {
			return nil, err
		}
		if err := s.entitled(pkg); err != nil {
			audit.Record(ctx, audit.Entry{Action: ActionTemplate, ResourceType: "template", ResourceID: id, Outcome: "failure",
				Details: map[string]any{"moduleKey": e.ID, "reason": "not entitled"}})
			return nil, err
		}
		pkgs = append(pkgs, pkg)
	}
	out := &TemplateResult{TemplateID: id, Modules: []*Result{}}
	keys := []string{}
	for _, pkg := range pkgs {
		r, err := s.Install(ctx, p, pkg, Options{InstallDependencies: true})
		if err != nil {
			return nil, err
		}
		out.Modules = append(out.Modules, r)
		keys = append(keys, r.ModuleKey+"@"+r.Version)
	}
	audit.Record(ctx, audit.Entry{Action: ActionTemplate, ResourceType: "template", ResourceID: id, Details: map[string]any{"modules": keys}})
	return out, nil
}
