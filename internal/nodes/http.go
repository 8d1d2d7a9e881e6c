package nodes

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /nodes.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/nodes", "listNodes", "Node tree the caller can view", web.User, "nodes")
	op.Description = "Flat array of every node on which the caller has at least view (directly, through a group or inherited from an ancestor), each with parentId; a visible node's parent may be absent when the caller cannot view it. Ordered by sortOrder, then title."
	web.Register(api, op, h.list)
	op = web.Op(http.MethodPost, "/nodes", "createNode", "Create a node", web.User, "nodes")
	op.Description = "Edit on the parent node is required; nodes at the root (no parentId) are created by administrators only. slug: lowercase letters, digits and single hyphens, at most 100 characters, unique among siblings (409 otherwise); the words lists, libraries, pages, surveys, groups and nodes (the canonical routes) and api, assets, health, ready, metrics and debug (the server's own paths beside the console) are reserved."
	web.Register(api, web.Answers(op, http.StatusCreated), h.create)
	op = web.Op(http.MethodGet, "/nodes/{id}", "getNode", "Read a node (view)", web.User, "nodes")
	op.Description = "View on the node is required (403 FORBIDDEN without it; 404 NOT_FOUND when the node does not exist)."
	web.Register(api, op, h.get)
	op = web.Op(http.MethodPatch, "/nodes/{id}", "updateNode", "Update or move a node", web.User, "nodes")
	op.Description = "Edit on the node is required. parentId moves the node (null = root, administrators only; otherwise edit on the new parent); moving a node under itself or a descendant answers 400. A duplicate sibling slug answers 409."
	web.Register(api, op, h.update)
	op = web.Op(http.MethodDelete, "/nodes/{id}", "deleteNode", "Delete an empty node", web.User, "nodes")
	op.Description = "Delete on the node is required. A node with child nodes, lists, libraries, pages or surveys answers 409; its menu and recycle-bin entries are removed with it."
	web.Register(api, op, h.delete)
}

type nodesIdPath struct {
	ID string `path:"id" format:"uuid" doc:"node id"`
}

func (h *Handler) list(ctx context.Context, _ *struct{}) (*web.Out[[]*Node], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.List(ctx, p))
}

type nodesCreateIn struct {
	Body struct {
		ParentID    *string `json:"parentId,omitempty" format:"uuid" required:"false" nullable:"true" doc:"parent node id, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (any case; urn:uuid:, braces and 32-hex are refused)"`
		Slug        string  `json:"slug" maxLength:"100"`
		Title       string  `json:"title" maxLength:"200"`
		Description string  `json:"description,omitempty" maxLength:"4000"`
		SortOrder   int     `json:"sortOrder,omitempty" minimum:"-2147483648" maximum:"2147483647" doc:"position among siblings (32-bit integer)"`
	}
}

func (h *Handler) create(ctx context.Context, in *nodesCreateIn) (*web.Out[*Node], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	nn := NewNode{Slug: b.Slug, Title: b.Title, Description: b.Description, SortOrder: b.SortOrder}
	if b.ParentID != nil {
		nn.ParentID = *b.ParentID
	}
	return web.ReplyCreated(h.svc.Create(ctx, p, nn))
}

func (h *Handler) get(ctx context.Context, in *nodesIdPath) (*web.Out[*Node], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Get(ctx, p, in.ID))
}

type nodesUpdateIn struct {
	ID   string `path:"id" format:"uuid" doc:"node id"`
	Body struct {
		web.ReadOnlyFrom[*Node]
		ParentID    OptString `json:"parentId,omitempty" required:"false" doc:"new parent node id; null moves the node to the root"`
		Slug        *string   `json:"slug,omitempty" maxLength:"100"`
		Title       *string   `json:"title,omitempty" maxLength:"200"`
		Description *string   `json:"description,omitempty" maxLength:"4000"`
		SortOrder   *int      `json:"sortOrder,omitempty" minimum:"-2147483648" maximum:"2147483647" doc:"position among siblings (32-bit integer)"`
	}
}

func (h *Handler) update(ctx context.Context, in *nodesUpdateIn) (*web.Out[*Node], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	return web.Reply(h.svc.Update(ctx, p, in.ID, Patch{Parent: b.ParentID, Slug: b.Slug, Title: b.Title, Description: b.Description, SortOrder: b.SortOrder}))
}

func (h *Handler) delete(ctx context.Context, in *nodesIdPath) (*web.Out[any], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Delete(ctx, p, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
