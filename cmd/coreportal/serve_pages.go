package main

import (
	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/pages"
	"coreportal/internal/routes"
)

// buildPages wires pages: the service, its recycle-bin kind and slug routes.
func (a *app) buildPages() {
	bin := a.access.recycleBin
	a.pages = pages.New(a.db, a.acl, bin)
	bin.RegisterKind(pages.Kind, a.pages.Restore, a.pages.Purge)
	a.access.routes.RegisterResolver("page", a.pages.ResolveSlug)
	a.access.routes.RegisterSlugger("page", a.pages.SlugOf)
	a.access.routes.RegisterGate("page", routes.GateOf(a.pages.Get))
}

// pagesHandler is the HTTP handler of pages.
func (a *app) pagesHandler() interface{ Register(huma.API) } { return pages.NewHandler(a.pages) }
