package main

import (
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/modules"
	"coreportal/internal/vendorkey"
)

// buildModules wires module installation on the domain services that
// create a module's resources (built before it) and the licence. Vendor
// modules of the local and remote catalogs must be signed with the key that
// signs release packages (CORE_UPDATE_PUBLIC_KEY, else the built-in one).
func (a *app) buildModules() error {
	pub, err := vendorkey.Parse(a.cfg.UpdatePublicKey)
	if err != nil {
		return fmt.Errorf("CORE_UPDATE_PUBLIC_KEY: %w", err)
	}
	a.modules = modules.New(a.db, modules.Services{
		Nodes: a.nodes, Lists: a.lists, Libraries: a.libraries, Pages: a.pages, Groups: a.access.groups, Menu: a.access.menu,
	}, a.licence, modules.Config{CatalogPath: a.cfg.ModuleCatalogPath, CatalogURL: a.cfg.ModuleCatalogURL, VendorKey: pub})
	return nil
}

// mountModules registers the modules operations and the streamed upload.
func (a *app) mountModules(api huma.API, mux *http.ServeMux) {
	h := modules.NewHandler(a.modules)
	h.Register(api)
	h.Mount(mux)
}
