package modules

import (
	"context"
)

// CatalogStatus is the answer of GET /modules/catalog/status.
type CatalogStatus struct {
	Vendor    SourceStatus     `json:"vendor" doc:"the vendor catalog embedded in this release"`
	Local     SourceStatus     `json:"local" doc:"MODULE_CATALOG_PATH"`
	Remote    SourceStatus     `json:"remote" doc:"MODULE_CATALOG_URL"`
	Licence   LicenceBlock     `json:"licence"`
	Templates []TemplateCounts `json:"templates"`
}

// SourceStatus describes one catalog.
type SourceStatus struct {
	Configured bool   `json:"configured"`
	Status     string `json:"status" enum:"ok,error,not_configured"`
	Message    string `json:"message,omitempty" doc:"why a configured catalog cannot be read"`
	Modules    int    `json:"modules" doc:"entries listed"`
	Available  int    `json:"available" doc:"entries this portal may install: non-vendor modules, and vendor modules that are free or entitled (in local and remote catalogs only signed vendor entries count; the signature is checked on installation)"`
}

// LicenceBlock is the part of the licence status that decides availability.
type LicenceBlock struct {
	Mode    string   `json:"mode"`
	Valid   bool     `json:"valid"`
	Modules []string `json:"modules" doc:"entitlement patterns in force"`
}

// TemplateCounts are the counters of one template.
type TemplateCounts struct {
	TemplateID string `json:"templateId"`
	Modules    int    `json:"modules"`
	Available  int    `json:"available"`
	Installed  int    `json:"installed"`
}

// CatalogStatus reads every catalog (the remote one with its timeout).
func (s *Service) CatalogStatus(ctx context.Context) (*CatalogStatus, error) {
	st := s.lic.Current()
	out := &CatalogStatus{Licence: LicenceBlock{Mode: st.Mode, Valid: st.Valid, Modules: st.Modules}, Templates: []TemplateCounts{}}
	if out.Licence.Modules == nil {
		out.Licence.Modules = []string{}
	}
	out.Vendor = s.sourceStatus(ctx, s.vendor, nil)
	out.Local = s.sourceStatus(ctx, s.local, nil)
	out.Remote = s.sourceStatus(ctx, s.remote, s.badURL)
	ts, err := s.Templates(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		c := TemplateCounts{TemplateID: t.ID, Modules: t.Catalog.TotalModules, Available: t.Catalog.AvailableModules}
		for _, m := range t.Modules {
			if m.InstalledVersion != "" {
				c.Installed++
			}
		}
		out.Templates = append(out.Templates, c)
	}
	return out, nil
}

func (s *Service) sourceStatus(ctx context.Context, c catalog, confErr error) SourceStatus {
	if confErr != nil {
		return SourceStatus{Configured: true, Status: "error", Message: confErr.Error()}
	}
	if c == nil {
		return SourceStatus{Status: "not_configured"}
	}
	es, err := c.entries(ctx)
	if err != nil {
		// the administrator configured the source: the reason helps, paths and all
		return SourceStatus{Configured: true, Status: "error", Message: err.Error()}
	}
	out := SourceStatus{Configured: true, Status: "ok", Modules: len(es)}
	_, isVendor := c.(*vendorCatalog)
	for _, e := range es {
		switch {
		case isVendor && (e.IsFree || s.lic.Entitled(e.ID)):
			out.Available++
		case !isVendor && !IsVendorKey(e.ID):
			out.Available++
		case !isVendor && e.Signature != "" && (e.IsFree || s.lic.Entitled(e.ID)):
			out.Available++ // the signature itself is checked on installation
		}
	}
	return out
}
