package menu

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /nodes/{nodeId}/menu.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/nodes/{nodeId}/menu", "getNodeMenu", "Effective menu of a node", web.User, "menu")
	op.Description = "View on the node. When the node inherits (menu settings inheritParent, default true) the parent's effective menu comes first (items marked inherited), then the node's own items. " +
		"Items pointing at a node, list, library, page or survey the caller cannot view (or that no longer exists) are hidden with their children; their links are the current canonical paths."
	web.Register(api, op, h.get)
	op = web.Op(http.MethodGet, "/nodes/{nodeId}/menu/manage", "manageNodeMenu", "Menu editor data", web.User, "menu")
	op.Description = "Edit on the node. settings, the node's own items (unfiltered) and the inherited items for reference. " +
		"An own item bound to a node or resource the caller cannot view is listed with its stored link but without resourceType / resourceId."
	web.Register(api, op, h.manage)
	op = web.Op(http.MethodPut, "/nodes/{nodeId}/menu/settings", "saveNodeMenuSettings", "Menu inheritance settings", web.User, "menu")
	op.Description = "Edit on the node. { inheritParent }."
	web.Register(api, op, h.settings)
	op = web.Op(http.MethodPost, "/nodes/{nodeId}/menu/items", "addNodeMenuItem", "Add a menu item", web.User, "menu")
	op.Description = "Edit on the node. link: a slug path (/a/b/lists/tasks), a hash-style link (converted to its canonical path, 400 when it points nowhere), an absolute http(s) URL with a host or a mailto URL, or empty for a heading (//host, backslashes and URLs with spaces are refused: browsers would read them as another site). " +
		"Portal links are bound to their resource so that renames keep working. Links are resolved as the caller: a node or resource the caller cannot view is treated exactly like a missing one " +
		"(a path is kept as written and bound to nothing, a hash-style link answers 400). parentItemId (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, any case) nests the item (at most 4 levels); the item goes last among its siblings."
	web.Register(api, web.Answers(op, http.StatusCreated), h.add)
	op = web.Op(http.MethodPatch, "/nodes/{nodeId}/menu/items/{itemId}", "updateNodeMenuItem", "Change a menu item", web.User, "menu")
	op.Description = "Edit on the node. A new link is resolved as the caller, like on creation; the answer leaves out resourceType / resourceId when the caller cannot view the bound resource."
	web.Register(api, op, h.update)
	op = web.Op(http.MethodDelete, "/nodes/{nodeId}/menu/items/{itemId}", "deleteNodeMenuItem", "Delete a menu item and its nested items", web.User, "menu")
	op.Description = "Edit on the node. The item's nested items are deleted with it."
	web.Register(api, op, h.delete)
	op = web.Op(http.MethodPost, "/nodes/{nodeId}/menu/items/{itemId}/move", "moveNodeMenuItem", "Move a menu item", web.User, "menu")
	op.Description = "Edit on the node. direction up / down swaps with the previous / next sibling; into makes it the last child of its previous sibling; out places it right after its parent. Impossible moves answer 400. Answers the node's own items, as the menu editor data shows them."
	web.Register(api, op, h.move)
}

type menuNodePath struct {
	NodeID string `path:"nodeId" format:"uuid"`
}

// MenuView is the effective menu.
type MenuView struct {
	Settings Settings `json:"settings"`
	Items    []*Item  `json:"items"`
}

func (h *Handler) get(ctx context.Context, in *menuNodePath) (*web.Out[MenuView], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	st, items, err := h.svc.Effective(ctx, p, in.NodeID)
	if err != nil {
		return nil, err
	}
	return web.OK(MenuView{Settings: st, Items: items}), nil
}

// MenuManage is the editor data.
type MenuManage struct {
	Settings  Settings `json:"settings"`
	Items     []*Item  `json:"items"`
	Inherited []*Item  `json:"inherited"`
}

func (h *Handler) manage(ctx context.Context, in *menuNodePath) (*web.Out[MenuManage], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	st, own, inh, err := h.svc.Manage(ctx, p, in.NodeID)
	if err != nil {
		return nil, err
	}
	return web.OK(MenuManage{Settings: st, Items: own, Inherited: inh}), nil
}

type menuSettingsIn struct {
	NodeID string `path:"nodeId" format:"uuid"`
	Body   struct {
		InheritParent bool `json:"inheritParent"`
	}
}

func (h *Handler) settings(ctx context.Context, in *menuSettingsIn) (*web.Out[Settings], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.SaveSettings(ctx, p, in.NodeID, Settings{InheritParent: in.Body.InheritParent}))
}

type menuAddIn struct {
	NodeID string `path:"nodeId" format:"uuid"`
	Body   struct {
		Title        string `json:"title" maxLength:"200"`
		Link         string `json:"link,omitempty" maxLength:"2000"`
		ParentItemID string `json:"parentItemId,omitempty" format:"uuid"`
		OpenInNewTab bool   `json:"openInNewTab,omitempty"`
	}
}

func (h *Handler) add(ctx context.Context, in *menuAddIn) (*web.Out[*Item], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	return web.ReplyCreated(h.svc.AddItem(ctx, p, in.NodeID, NewItem{Title: b.Title, Link: b.Link, ParentItemID: b.ParentItemID, OpenInNewTab: b.OpenInNewTab}))
}

type menuItemPath struct {
	NodeID string `path:"nodeId" format:"uuid"`
	ItemID string `path:"itemId" format:"uuid"`
}

type menuUpdateIn struct {
	NodeID string `path:"nodeId" format:"uuid"`
	ItemID string `path:"itemId" format:"uuid"`
	Body   struct {
		Title        *string `json:"title,omitempty" maxLength:"200"`
		Link         *string `json:"link,omitempty" maxLength:"2000"`
		OpenInNewTab *bool   `json:"openInNewTab,omitempty"`
	}
}

func (h *Handler) update(ctx context.Context, in *menuUpdateIn) (*web.Out[*Item], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	return web.Reply(h.svc.UpdateItem(ctx, p, in.NodeID, in.ItemID, ItemPatch{Title: b.Title, Link: b.Link, OpenInNewTab: b.OpenInNewTab}))
}

func (h *Handler) delete(ctx context.Context, in *menuItemPath) (*web.Out[any], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.DeleteItem(ctx, p, in.NodeID, in.ItemID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

type menuMoveIn struct {
	NodeID string `path:"nodeId" format:"uuid"`
	ItemID string `path:"itemId" format:"uuid"`
	Body   struct {
		Direction string `json:"direction" enum:"up,down,into,out"`
	}
}

func (h *Handler) move(ctx context.Context, in *menuMoveIn) (*web.Out[[]*Item], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Move(ctx, p, in.NodeID, in.ItemID, in.Body.Direction))
}
