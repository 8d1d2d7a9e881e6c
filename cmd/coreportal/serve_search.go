package main

import (
	"context"
	"fmt"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/doctext"
	"coreportal/internal/jobs"
	"coreportal/internal/nodes"
	"coreportal/internal/principals"
	"coreportal/internal/search"
	"coreportal/internal/services"
	"coreportal/internal/store"
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
	a.reindexOnRenames()
}

// jobReindexSubject re-indexes what names a renamed user or group.
const jobReindexSubject = "search.reindexSubject"

// reindexOnRenames: items and files hold the names of the people their
// person fields name in their search text; a rename (users, groups, the
// directory sync) queues a job in its transaction that re-indexes them.
func (a *app) reindexOnRenames() {
	principals.OnRenamed(a.db, func(ctx context.Context, id string) error {
		_, err := a.jobs.Enqueue(ctx, jobReindexSubject, map[string]string{"subjectId": id})
		return err
	})
	a.jobs.Handle(jobReindexSubject, func(ctx context.Context, j *jobs.Job) (any, error) {
		var p struct {
			SubjectID string `json:"subjectId"`
		}
		if err := j.Decode(&p); err != nil {
			return nil, jobs.Permanent(err)
		}
		id, ok := store.CanonicalUUID(p.SubjectID) // the form person values store
		if !ok {
			return nil, jobs.Permanent(fmt.Errorf("subjectId %q is not a UUID", p.SubjectID))
		}
		// this instance may still hold the old name (groups: up to the cache's TTL)
		principals.For(a.db).Forget(id)
		items, err := a.lists.ReindexSubject(ctx, id)
		if err != nil {
			return nil, err
		}
		files, err := a.libraries.ReindexSubject(ctx, id)
		if err != nil {
			return nil, err
		}
		return map[string]int{"items": items, "files": files}, nil
	})
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
