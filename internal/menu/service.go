// Package menu owns the side menu of each node: ordered, nested items whose
// links are canonical slug paths, optionally inheriting the parent node's menu.
package menu

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/routes"
	"coreportal/internal/store"
)

// maxDepth limits nesting (a top-level item has depth 1).
const maxDepth = 4

// Item is a menu item; Children holds nested items.
type Item struct {
	ID           string  `json:"id" format:"uuid"`
	NodeID       string  `json:"nodeId" format:"uuid" doc:"node whose menu defines the item"`
	ParentItemID *string `json:"parentItemId" format:"uuid"`
	Title        string  `json:"title"`
	Link         string  `json:"link" doc:"canonical slug path, or an external http(s)/mailto URL; empty for a heading"`
	ResourceType *string `json:"resourceType" doc:"node, list, library, page or survey the link points at, when it points inside the portal"`
	ResourceID   *string `json:"resourceId" format:"uuid"`
	OpenInNewTab bool    `json:"openInNewTab"`
	SortOrder    int     `json:"sortOrder"`
	Inherited    bool    `json:"inherited" doc:"true for items of an ancestor's menu"`
	Children     []*Item `json:"children"`
}

// Settings are the menu inheritance settings of a node.
type Settings struct {
	InheritParent bool `json:"inheritParent" doc:"show the parent node's effective menu above this node's own items (default true)"`
}

// Service holds the rules of menus.
type Service struct {
	db     *store.DB
	st     *menuStore
	acl    *acl.Engine
	nodes  *nodes.Service
	routes *routes.Service
	now    func() time.Time
}

// New builds the menu service.
func New(db *store.DB, engine *acl.Engine, n *nodes.Service, r *routes.Service) *Service {
	return &Service{db: db, st: &menuStore{db: db}, acl: engine, nodes: n, routes: r, now: time.Now}
}

// system builds the canonical path of a bound resource once the caller's view
// right on it has been checked (visibleLink); links typed by an editor are
// always resolved as that editor (normalizeLink).
var system = &auth.Principal{UserID: "00000000-0000-0000-0000-000000000000", IsAdmin: true, IsSystem: true}

var aclTypes = map[string]acl.Type{"node": acl.Node, "list": acl.List, "library": acl.Library, "page": acl.Page, "survey": acl.Survey}

// Effective returns the menu of a node as the caller sees it (view on the node):
// inherited items first when the node inherits, then its own; items pointing
// at resources the caller cannot view are hidden with their children.
func (s *Service) Effective(ctx context.Context, p *auth.Principal, nodeID string) (Settings, []*Item, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.View); err != nil {
		return Settings{}, nil, err
	}
	inherit, err := s.st.inheritParent(ctx, nodeID)
	if err != nil {
		return Settings{}, nil, err
	}
	items, err := s.effective(ctx, p, nodeID, 0)
	return Settings{InheritParent: inherit}, items, err
}

func (s *Service) effective(ctx context.Context, p *auth.Principal, nodeID string, depth int) ([]*Item, error) {
	own, err := s.tree(ctx, nodeID, p)
	if err != nil {
		return nil, err
	}
	inherit, err := s.st.inheritParent(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	n, err := s.nodes.Lookup(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	if !inherit || n.Parent() == "" || depth >= 64 {
		return own, nil
	}
	up, err := s.effective(ctx, p, n.Parent(), depth+1)
	if err != nil {
		return nil, err
	}
	markInherited(up)
	return append(up, own...), nil
}

func markInherited(items []*Item) {
	for _, it := range items {
		it.Inherited = true
		markInherited(it.Children)
	}
}

// tree builds the nested items of one node; with a caller, hidden items are dropped
// and links of bound items are refreshed to the current canonical path.
func (s *Service) tree(ctx context.Context, nodeID string, p *auth.Principal) ([]*Item, error) {
	rows, err := s.st.items(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	byParent := map[string][]row{}
	for _, r := range rows {
		byParent[r.ParentItemID] = append(byParent[r.ParentItemID], r)
	}
	var build func(parent string, depth int) ([]*Item, error)
	build = func(parent string, depth int) ([]*Item, error) {
		out := []*Item{}
		for _, r := range byParent[parent] {
			it := toItem(r)
			if p != nil && r.ResourceID != "" {
				ok, link, err := s.visibleLink(ctx, p, r)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				it.Link = link
			}
			if depth < 16 {
				if it.Children, err = build(r.ID, depth+1); err != nil {
					return nil, err
				}
			}
			out = append(out, it)
		}
		return out, nil
	}
	return build("", 0)
}

func (s *Service) visibleLink(ctx context.Context, p *auth.Principal, r row) (bool, string, error) {
	t, ok := aclTypes[r.ResourceType]
	if !ok {
		return true, r.Link, nil
	}
	lvl, err := s.acl.Level(ctx, p, acl.Ref{Type: t, ID: r.ResourceID})
	if err != nil || lvl < acl.View {
		return false, "", err
	}
	var res *routes.RouteResult
	if t == acl.Node {
		res, err = s.routes.Canonical(ctx, system, "node", r.ResourceID, "")
	} else {
		res, err = s.routes.Canonical(ctx, system, r.ResourceType, "", r.ResourceID)
	}
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return false, "", nil
		}
		return false, "", err
	}
	return true, res.Path, nil
}

func toItem(r row) *Item {
	it := &Item{ID: r.ID, NodeID: r.NodeID, Title: r.Title, Link: r.Link, OpenInNewTab: r.OpenInNewTab, SortOrder: r.SortOrder, Children: []*Item{}}
	if r.ParentItemID != "" {
		v := r.ParentItemID
		it.ParentItemID = &v
	}
	if r.ResourceType != "" {
		rt, rid := r.ResourceType, r.ResourceID
		it.ResourceType, it.ResourceID = &rt, &rid
	}
	return it
}

// editorTree is the node's own items unfiltered (editors manage every item),
// with the binding (resourceType, resourceId) of items pointing at resources
// the caller cannot view left out, so that the editor view never names them.
func (s *Service) editorTree(ctx context.Context, nodeID string, p *auth.Principal) ([]*Item, error) {
	items, err := s.tree(ctx, nodeID, nil)
	if err != nil {
		return nil, err
	}
	return items, s.redact(ctx, p, items)
}

// redact drops the bindings of items whose resource p cannot view.
func (s *Service) redact(ctx context.Context, p *auth.Principal, items []*Item) error {
	for _, it := range items {
		if it.ResourceID != nil && it.ResourceType != nil {
			lvl := acl.None
			if t, ok := aclTypes[*it.ResourceType]; ok {
				var err error
				if lvl, err = s.acl.Level(ctx, p, acl.Ref{Type: t, ID: *it.ResourceID}); err != nil {
					return err
				}
			}
			if lvl < acl.View {
				it.ResourceType, it.ResourceID = nil, nil
			}
		}
		if err := s.redact(ctx, p, it.Children); err != nil {
			return err
		}
	}
	return nil
}

// Manage returns the editor data (edit on the node): settings, the node's own
// items unfiltered (bindings to resources the caller cannot view left out),
// and the inherited items for reference.
func (s *Service) Manage(ctx context.Context, p *auth.Principal, nodeID string) (Settings, []*Item, []*Item, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return Settings{}, nil, nil, err
	}
	inherit, err := s.st.inheritParent(ctx, nodeID)
	if err != nil {
		return Settings{}, nil, nil, err
	}
	own, err := s.editorTree(ctx, nodeID, p)
	if err != nil {
		return Settings{}, nil, nil, err
	}
	inherited := []*Item{}
	n, err := s.nodes.Lookup(ctx, nodeID)
	if err != nil {
		return Settings{}, nil, nil, err
	}
	if inherit && n.Parent() != "" {
		if inherited, err = s.effective(ctx, p, n.Parent(), 1); err != nil {
			return Settings{}, nil, nil, err
		}
		markInherited(inherited)
	}
	return Settings{InheritParent: inherit}, own, inherited, nil
}

// SaveSettings changes the inheritance setting (edit on the node).
func (s *Service) SaveSettings(ctx context.Context, p *auth.Principal, nodeID string, in Settings) (Settings, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return Settings{}, err
	}
	return in, s.st.setInheritParent(ctx, nodeID, in.InheritParent, s.now().UTC())
}

// normalizeLink turns a link into its stored form: canonical slug path (hash
// links converted), bound to the resource it points at when it resolves.
// Links resolve as the caller: a target the caller cannot view is treated
// exactly like a missing one (a path is kept as written and bound to nothing,
// a hash link is a 400 with the same message), so that an editor learns
// neither the id, nor the slug path, nor the existence of hidden resources.
func (s *Service) normalizeLink(ctx context.Context, p *auth.Principal, link string) (string, string, string, error) {
	link = strings.TrimSpace(link)
	low := strings.ToLower(link)
	switch {
	case link == "":
		return "", "", "", nil
	case len(link) > 2000:
		return "", "", "", fault.Validation("link", "link must have at most 2000 characters")
	case strings.HasPrefix(low, "http://"), strings.HasPrefix(low, "https://"), strings.HasPrefix(low, "mailto:"):
		u, err := url.Parse(link)
		if err != nil || (u.Scheme != "mailto" && u.Host == "") || strings.ContainsAny(link, " \t\\") {
			return "", "", "", fault.Validation("link", "link %q is not a valid URL", link)
		}
		return link, "", "", nil
	case strings.HasPrefix(link, "//"), strings.Contains(link, "\\"):
		// a browser reads //host and /\host as another site: not a portal path
		return "", "", "", fault.Validation("link", "link must be a slug path starting with /, a hash-style link or an http(s) or mailto URL")
	}
	var res *routes.RouteResult
	var err error
	switch {
	case strings.Contains(link, "#"):
		res, err = s.routes.Legacy(ctx, p, link)
		if err != nil {
			return "", "", "", fault.Validation("link", "the hash-style link %q does not point at an existing node or resource", link)
		}
	case strings.HasPrefix(link, "/"):
		res, err = s.routes.Resolve(ctx, p, link)
		if err != nil {
			if fault.Is(err, fault.CodeNotFound) || fault.Is(err, fault.CodeForbidden) {
				// a portal path that does not resolve (yet), or one the editor
				// cannot see (which must not be told apart): kept as written
				return link, "", "", nil
			}
			return "", "", "", fault.Validation("link", "link %q is not a valid path", link)
		}
	default:
		return "", "", "", fault.Validation("link", "link must be a slug path starting with /, a hash-style link or an http(s) or mailto URL")
	}
	switch {
	case res.Type == "node" && res.Action == "" && res.NodeID != nil:
		return res.Path, "node", *res.NodeID, nil
	case aclTypes[res.Type] != "" && res.ResourceID != nil:
		return res.Path, res.Type, *res.ResourceID, nil
	}
	return res.Path, "", "", nil
}

func checkTitle(t string) (string, error) { return fault.RequiredText("title", t, 200) }

// NewItem is the input of AddItem.
type NewItem struct {
	Title        string
	Link         string
	ParentItemID string
	OpenInNewTab bool
}

// AddItem appends an item (edit on the node), at the top level or under a parent item.
func (s *Service) AddItem(ctx context.Context, p *auth.Principal, nodeID string, in NewItem) (*Item, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return nil, err
	}
	title, err := checkTitle(in.Title)
	if err != nil {
		return nil, err
	}
	parentID, err := acl.CanonicalField("parentItemId", in.ParentItemID)
	if err != nil {
		return nil, err
	}
	in.ParentItemID = parentID
	link, rt, rid, err := s.normalizeLink(ctx, p, in.Link)
	if err != nil {
		return nil, err
	}
	x := row{ID: uuid.NewString(), NodeID: nodeID, ParentItemID: in.ParentItemID, Title: title, Link: link, ResourceType: rt, ResourceID: rid, OpenInNewTab: in.OpenInNewTab}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		all, err := s.st.items(ctx, nodeID)
		if err != nil {
			return err
		}
		if in.ParentItemID != "" {
			if _, ok := find(all, in.ParentItemID); !ok {
				return fault.NotFound("parent menu item").With("field", "parentItemId")
			}
			if depthOf(all, in.ParentItemID)+1 > maxDepth {
				return fault.Validation("parentItemId", "menus nest at most %d levels", maxDepth)
			}
		}
		x.SortOrder = len(siblings(all, in.ParentItemID))
		return s.st.insert(ctx, x, s.now().UTC())
	})
	if err != nil {
		return nil, err
	}
	return toItem(x), nil
}

// ItemPatch is the input of UpdateItem.
type ItemPatch struct {
	Title        *string
	Link         *string
	OpenInNewTab *bool
}

// UpdateItem changes an item's title, link or target (edit on the node).
func (s *Service) UpdateItem(ctx context.Context, p *auth.Principal, nodeID, itemID string, in ItemPatch) (*Item, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return nil, err
	}
	var out row
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		x, err := s.itemOf(ctx, nodeID, itemID)
		if err != nil {
			return err
		}
		if in.Title != nil {
			if x.Title, err = checkTitle(*in.Title); err != nil {
				return err
			}
		}
		if in.Link != nil {
			if x.Link, x.ResourceType, x.ResourceID, err = s.normalizeLink(ctx, p, *in.Link); err != nil {
				return err
			}
		}
		if in.OpenInNewTab != nil {
			x.OpenInNewTab = *in.OpenInNewTab
		}
		out = x
		return s.st.update(ctx, x, s.now().UTC())
	})
	if err != nil {
		return nil, err
	}
	it := toItem(out)
	return it, s.redact(ctx, p, []*Item{it})
}

func (s *Service) itemOf(ctx context.Context, nodeID, itemID string) (row, error) {
	if _, err := uuid.Parse(itemID); err != nil {
		return row{}, fault.NotFound("menu item")
	}
	x, err := s.st.item(ctx, nodeID, itemID)
	if store.IsNotFound(err) {
		return row{}, fault.NotFound("menu item")
	}
	return x, err
}

// DeleteItem removes an item and its nested items (edit on the node).
func (s *Service) DeleteItem(ctx context.Context, p *auth.Principal, nodeID, itemID string) error {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		x, err := s.itemOf(ctx, nodeID, itemID)
		if err != nil {
			return err
		}
		all, err := s.st.items(ctx, nodeID)
		if err != nil {
			return err
		}
		if err := s.st.delete(ctx, subtree(all, itemID)); err != nil {
			return err
		}
		return s.renumber(ctx, all, x.ParentItemID, itemID)
	})
}
