package pages

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /pages.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// maxBody lets a page of MaxContent multi-byte characters through; larger
// bodies answer 413.
const maxBody = 8 << 20

func op(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.User, "pages")
	o.Description = desc
	return o
}

const sanitised = " content is HTML (at most 1,000,000 characters) sanitised with the same policy as html_text list fields: scripts, style, event-handler (on*) attributes, forms, iframes and javascript: URLs are removed; text formatting, headings, lists, tables, links (rel=nofollow added) and images are kept. id and name attributes (and usemap, which refers to a name) are removed, as an element named by user content could shadow the front end's own (DOM clobbering): a link to an in-page anchor (href=\"#x\") is kept but finds no target. The answer carries the content as stored."

// Register adds the operations.
func (h *Handler) Register(api huma.API) {
	web.Register(api, op(http.MethodGet, "/pages", "listPages", "Pages of a node",
		"View on the node (403 without it, 404 for a node that does not exist). Pages the caller cannot view are left out; ordered by title; paged (page, limit 1-500, default 50) with meta { page, limit, total, totalPages }, total counting the pages the caller can view."), h.list)
	create := op(http.MethodPost, "/pages", "createPage", "Create a page",
		"Edit on the node. slug: lowercase letters, digits and hyphens, unique among the node's pages (409 CONFLICT otherwise; a page in the recycle bin keeps its slug only once restored). title is required (at most 200 characters)."+sanitised+" The page inherits the rights of its node; give it its own with /permissions (resourceType=page; edit on the page may manage them).")
	create.MaxBodyBytes = maxBody
	web.Register(api, web.Answers(create, http.StatusCreated), h.create)
	web.Register(api, op(http.MethodGet, "/pages/{id}", "getPage", "One page",
		"View on the page (chain: page, node, ancestors). 404 when the page does not exist or is in the recycle bin, 403 when it exists and the caller lacks view."), h.get)
	patch := op(http.MethodPatch, "/pages/{id}", "updatePage", "Change a page",
		"Edit on the page. title, slug and content are optional; absent keys stay. A slug taken by another page of the node answers 409. A page does not move between nodes (nodeId is not accepted)."+sanitised)
	patch.MaxBodyBytes = maxBody
	web.Register(api, patch, h.update)
	web.Register(api, op(http.MethodDelete, "/pages/{id}", "deletePage", "Move a page to the recycle bin",
		"Delete on the page. One recycle-bin entry of kind page on the node; its explicit rights are kept and come back with POST /nodes/{nodeId}/recycle-bin/{entryId}/restore (409 when another page took the slug meanwhile); purging the entry deletes the page and its rights."), h.delete)
}

type pageListIn struct {
	NodeID string `query:"nodeId" required:"true" doc:"node id"`
	web.PageQuery
}

func (h *Handler) list(ctx context.Context, in *pageListIn) (*web.PagedOut[[]*Page, web.PageMeta], error) {
	pgs, total, err := h.svc.List(ctx, auth.FromContext(ctx), in.NodeID, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(pgs, web.NewPageMeta(in.PageQuery, total)), nil
}

type createPageIn struct {
	Body struct {
		NodeID  string `json:"nodeId" doc:"node id"`
		Slug    string `json:"slug"`
		Title   string `json:"title"`
		Content string `json:"content,omitempty" doc:"HTML"`
	}
}

func (h *Handler) create(ctx context.Context, in *createPageIn) (*web.Out[*Page], error) {
	b := in.Body
	return web.ReplyCreated(h.svc.Create(ctx, auth.FromContext(ctx), NewPage{NodeID: b.NodeID, Slug: b.Slug, Title: b.Title, Content: b.Content}))
}

// PageIDParams is the path of one page.
type PageIDParams struct {
	ID string `path:"id" doc:"page id"`
}

func (h *Handler) get(ctx context.Context, in *PageIDParams) (*web.Out[*Page], error) {
	return web.Reply(h.svc.Get(ctx, auth.FromContext(ctx), in.ID))
}

type updatePageIn struct {
	PageIDParams
	Body struct {
		web.ReadOnlyFrom[*Page]
		Slug    *string `json:"slug,omitempty"`
		Title   *string `json:"title,omitempty"`
		Content *string `json:"content,omitempty" doc:"HTML"`
	}
}

func (h *Handler) update(ctx context.Context, in *updatePageIn) (*web.Out[*Page], error) {
	b := in.Body
	return web.Reply(h.svc.Update(ctx, auth.FromContext(ctx), in.ID, Patch{Slug: b.Slug, Title: b.Title, Content: b.Content}))
}

func (h *Handler) delete(ctx context.Context, in *PageIDParams) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, auth.FromContext(ctx), in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
