package search

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves GET /search and POST /admin/search/clear.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

const searchDoc = `Full-text search over list items, library files (name, custom fields and the text inside txt, md, csv, html, docx, xlsx, pptx, odt and pdf files), pages, nodes, lists, libraries and surveys. ` +
	`Lookup fields of items and files are not indexed (their displays are other items' text, which some readers of the item may not view; person fields are found by the names of their users and groups: renaming a user (also by the directory sync) or a group queues a job, search.reindexSubject, that re-indexes the items and files naming it, so the new name finds them and the old one no longer does within seconds); POST /services/search-crawler/run rebuilds the whole index. ` +
	`Any signed-in user; only what the caller may view is returned and counted, exactly as the permission engine decides viewing ` +
	`(grants on the resource, on every folder up to its nearest isolated resource, on the list or library, on the node and its ancestors, direct or through groups; ` +
	`rights are applied in the database query, so meta.total and paging are exact; administrators see everything). Lists with searchEnabled=false and resources in the recycle bin are never found. ` +
	`Timing: the rights are checked on each row the full-text index yields for the terms (SQLite: every FTS5 match, since FTS5 cannot filter by rights inside its index walk; PostgreSQL: the matches of the GIN bitmap, or the rows of the newest-first walk), ` +
	`so a search takes longer the more entries match its terms, whether the caller may view them or not: about 1.5 µs per hidden match on SQLite ` +
	`(measured: 20 visible matches 7.6 ms, the same with 2,000 hidden matches besides 10.7 ms, on a loaded test machine; on PostgreSQL the difference was below the noise). ` +
	`Results, meta.total and paging never depend on hidden entries; only this time does, which can hint at how many hidden entries hold a word when thousands do.

Results are ranked in two tiers (score 2: the title matches every term, then score 1), newest first (updatedAt) within a tier. ` +
	`meta.total is exact: it counts every result the caller can view, and every page up to totalPages can be read.

` +
	`Document text is extracted after the upload by a background job (search.extractText), so a word inside a file is found seconds after the upload, ` +
	`its name at once; at most 256 KiB of text per file is indexed (limits: see POST /libraries/{libraryId}/files). A file whose extraction failed is found by name and fields only.`

// Register adds the operations.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/search", "search", "Search everything the caller can view", web.User, "search")
	op.Description = searchDoc
	web.Register(api, op, h.search)
	clear := web.Op(http.MethodPost, "/admin/search/clear", "clearSearchIndex", "Empty the search index", web.Admin, "search")
	clear.Description = `Administrators. Removes every entry without re-crawling (saves index again from then on; POST /services/search-crawler/run rebuilds). data: { total } = the number of entries removed. ` +
		`The crawler job's result shows its progress while it runs and its outcome at the end: { finished, indexed, bySource, ` +
		`sources: [{ name, processed, total (an estimate, absent when unknown), done }], checkpoint (where an interrupted crawl resumes; empty when finished), resumed, elapsedMs }.`
	web.Register(api, clear, h.clear)
}

type searchIn struct {
	Q      string `query:"q" required:"true" maxLength:"1000" doc:"words, \"quoted phrases\" and prefixes ending in * (contr*); every term must match. Matching ignores case and inflection (Russian and English Snowball stemming: договоры finds договор, contracts finds contract) and treats ё as е; a prefix matches the start of the stemmed words. Words are runs of letters and digits: punctuation splits them, so budget.xlsx, node.js, user@example.com or 3.14159 are found by each part and by the whole. Very common English and Russian words (the, a, not, и, в …) are ignored on PostgreSQL but matched on SQLite. A q without any letter or digit answers 400"`
	Type   string `query:"type" enum:"item,file,page,node,list,library,survey" doc:"only results of this type"`
	NodeID string `query:"nodeId" doc:"only results in this node and the nodes below it (view on the node needed)"`
	Page   int    `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"page number, from 1"`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"page size, 1-100"`
}

func (h *Handler) search(ctx context.Context, in *searchIn) (*web.PagedOut[[]Hit, SearchMeta], error) {
	f, err := h.svc.Search(ctx, auth.FromContext(ctx), Request{Q: in.Q, Type: in.Type, NodeID: in.NodeID, Page: in.Page, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	m := SearchMeta{PageMeta: web.NewPageMeta(web.PageQuery{Page: in.Page, Limit: in.Limit}, f.Total), TotalRelation: "eq"}
	return web.Paged(f.Hits, m), nil
}

// SearchMeta is the meta of GET /search: the page meta and totalRelation,
// always "eq" (exact; kept for the clients of releases that capped totals).
type SearchMeta struct {
	web.PageMeta
	TotalRelation string `json:"totalRelation" enum:"eq" doc:"always eq: total is exact"`
}

// IndexClearResult is the answer of POST /admin/search/clear.
type IndexClearResult struct {
	Total int `json:"total" doc:"entries removed"`
}

func (h *Handler) clear(ctx context.Context, _ *struct{}) (*web.Out[IndexClearResult], error) {
	n, err := h.svc.Clear(ctx)
	if err == nil {
		audit.Record(ctx, audit.Entry{Action: audit.SearchClear, ResourceType: "search", Details: map[string]any{"total": n}})
	}
	return web.Reply(IndexClearResult{Total: n}, err)
}
