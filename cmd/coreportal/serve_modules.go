package main

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/modules"
)

// buildModules wires module installation on the domain services that
// create a module's resources (built before it) and the licence.
func (a *app) buildModules() {
	a.modules = modules.New(a.db, modules.Services{
		Nodes: a.nodes, Lists: a.lists, Libraries: a.libraries, Pages: a.pages, Groups: a.access.groups,
	}, a.licence, modules.Config{CatalogPath: a.cfg.ModuleCatalogPath, CatalogURL: a.cfg.ModuleCatalogURL})
}

// mountModules registers the modules operations and the streamed upload.
func (a *app) mountModules(api huma.API, mux *http.ServeMux) {
	h := modules.NewHandler(a.modules)
	h.Register(api)
	h.Mount(mux)
}
