package main

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/doctext"
	"coreportal/internal/nodes"
	"coreportal/internal/search"
	"coreportal/internal/services"
)

// buildSearch wires the search index into every service that saves
// searchable content, the acl engine (inheritance changes and moves), the
// crawler service and its sources. Runs after the feature services are built.
func (a *app) buildSearch() {
	ix := search.New(a.db, a.acl)
	a.search = ix
	ix.ReportProgress(a.jobs.Progress)
	a.acl.OnRescope(ix.Rescope)
	a.nodes.OnSaved(func(ctx context.Context, n *nodes.Node) error { return ix.Put(ctx, nodes.SearchDoc(n)) })
	a.nodes.OnDelete(func(ctx context.Context, id string) error { return ix.Remove(ctx, id) })
	a.lists.UseIndex(ix)
	a.pages.UseIndex(ix)
	a.libraries.UseIndex(ix)
	a.libraries.UseTextExtraction(a.jobs, doctext.DefaultLimits())
	a.surveys.Index = ix
	ix.AddSource(search.Source{Name: "nodes", Page: a.nodes.SearchPage})
	ix.AddSource(search.Source{Name: "lists", Page: a.lists.SearchListsPage})
	ix.AddSource(search.Source{Name: "items", Page: a.lists.SearchItemsPage, Count: a.lists.SearchItemsCount})
	ix.AddSource(search.Source{Name: "pages", Page: a.pages.SearchPage})
	ix.AddSource(search.Source{Name: "libraries", Page: a.libraries.SearchLibrariesPage})
	ix.AddSource(search.Source{Name: "surveys", Page: a.surveys.SearchPage})
	a.services.RegisterJob(services.KeySearchCrawler, "searchCrawler.run", func(ctx context.Context) (any, error) {
		return ix.Crawl(ctx)
	})
	a.workers = append(a.workers, ix.MergePending)
}

// searchHandler is the HTTP handler of GET /search and POST /admin/search/clear.
func (a *app) searchHandler() interface{ Register(huma.API) } { return search.NewHandler(a.search) }

// searchIndexBlock is the dashboard's maintenance.searchIndex block.
func (a *app) searchIndexBlock(ctx context.Context) (map[string]any, error) {
	st, err := a.search.Stats(ctx)
	if err != nil {
		return nil, err
	}
	status := "ok"
	if st.LastCrawlAt == nil {
		status = "never crawled"
	}
	return map[string]any{"configured": true, "records": st.Entries, "updatedAt": st.LastCrawlAt, "status": status}, nil
}
