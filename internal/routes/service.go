// Package routes turns human-readable slug paths into identifiers and back:
// /a/b/lists/tasks resolves to the list "tasks" of node b under node a.
// Content packages plug in resolvers so that routes imports none of them.
package routes

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
)

// RouteResult is the route resolve result of SPEC.md.
type RouteResult struct {
	Type       string  `json:"type" enum:"home,node,list,library,page,surveys,survey,survey_new,survey_edit,survey_results,survey_take,groups,group"`
	Action     string  `json:"action,omitempty" enum:"new,edit" doc:"for /nodes/new, /nodes/<id>/edit, /groups/new, /groups/<id>/edit"`
	NodeID     *string `json:"nodeId" format:"uuid"`
	ResourceID *string `json:"resourceId,omitempty" format:"uuid" doc:"id of the list, library, page, survey or group"`
	ListID     *string `json:"listId,omitempty" format:"uuid"`
	LibraryID  *string `json:"libraryId,omitempty" format:"uuid"`
	PageID     *string `json:"pageId,omitempty" format:"uuid"`
	SurveyID   *string `json:"surveyId,omitempty" format:"uuid"`
	GroupID    *string `json:"groupId,omitempty" format:"uuid"`
	ParentID   *string `json:"parentId,omitempty" format:"uuid" doc:"for /nodes/new?parentId="`
	Path       string  `json:"path" doc:"canonical path"`
}

// Resolver finds a resource of a kind by slug within a node (fault.NotFound when absent).
type Resolver func(ctx context.Context, nodeID, slug string) (id string, err error)

// Gate answers whether p may open a resource of a kind, as the kind's own
// GET /<kind>/{id} decides for p: nil, or that GET's 403 or 404.
type Gate func(ctx context.Context, p *auth.Principal, id string) error

// Slugger gives the node and slug of a resource of a kind (fault.NotFound when absent).
type Slugger func(ctx context.Context, id string) (nodeID, slug string, err error)

// kinds maps the path word to the resource kind and its ACL type.
var kinds = map[string]struct {
	kind string
	t    acl.Type
}{
	"lists":     {"list", acl.List},
	"libraries": {"library", acl.Library},
	"pages":     {"page", acl.Page},
	"surveys":   {"survey", acl.Survey},
}

var wordOf = map[string]string{"list": "lists", "library": "libraries", "page": "pages", "survey": "surveys"}

// Service resolves routes.
type Service struct {
	nodes     *nodes.Service
	acl       *acl.Engine
	resolvers sync.Map // kind -> Resolver
	sluggers  sync.Map // kind -> Slugger
	gates     sync.Map // kind -> Gate
}

// New builds the routes service.
func New(n *nodes.Service, engine *acl.Engine) *Service { return &Service{nodes: n, acl: engine} }

// RegisterResolver plugs in slug resolution of a kind ("list", "library", "page", "survey").
func (s *Service) RegisterResolver(kind string, fn func(ctx context.Context, nodeID, slug string) (id string, err error)) {
	s.resolvers.Store(kind, Resolver(fn))
}

// RegisterSlugger plugs in the reverse direction (id to node and slug), used
// by /routes/canonical, /routes/legacy and menu links.
func (s *Service) RegisterSlugger(kind string, fn func(ctx context.Context, id string) (nodeID, slug string, err error)) {
	s.sluggers.Store(kind, Slugger(fn))
}

// RegisterGate plugs in the rule of a kind's GET, which routes apply before
// they name a resource of that kind (a survey draft needs edit, not view).
// A kind without a gate needs view on the resource.
func (s *Service) RegisterGate(kind string, fn func(ctx context.Context, p *auth.Principal, id string) error) {
	s.gates.Store(kind, Gate(fn))
}

// GateOf makes a kind's GET (the service method behind GET /<kind>/{id})
// the gate of that kind.
func GateOf[T any](get func(ctx context.Context, p *auth.Principal, id string) (T, error)) func(context.Context, *auth.Principal, string) error {
	return func(ctx context.Context, p *auth.Principal, id string) error {
		_, err := get(ctx, p, id)
		return err
	}
}

// openable answers for the resource as its kind's GET does for p.
func (s *Service) openable(ctx context.Context, p *auth.Principal, kind, id string) error {
	if g, ok := s.gates.Load(kind); ok {
		return g.(Gate)(ctx, p, id)
	}
	return s.visible(ctx, p, kinds[wordOf[kind]].t, id)
}

func ptr(s string) *string { return &s }

func notFound() error { return fault.NotFound("route") }

func isUUID(s string) bool { _, err := uuid.Parse(s); return err == nil && len(s) == 36 }

// Resolve resolves a canonical path for the caller: the target node and
// resource must be visible to the caller, else 403 (404 when they do not exist).
func (s *Service) Resolve(ctx context.Context, p *auth.Principal, raw string) (*RouteResult, error) {
	path, query, _ := strings.Cut(strings.TrimSpace(raw), "?")
	if !strings.HasPrefix(path, "/") {
		return nil, fault.Validation("path", "path must start with /")
	}
	segs := split(path)
	if len(segs) == 0 {
		return &RouteResult{Type: "home", Path: "/"}, nil
	}
	if segs[0] == "groups" || segs[0] == "nodes" {
		// ids inside the path come back in the canonical lower-case form
		// they are stored in (an upper-case id would never match).
		for i, sg := range segs {
			if isUUID(sg) {
				segs[i] = strings.ToLower(sg)
			}
		}
		query = canonicalQuery(query)
	}
	switch segs[0] {
	case "groups":
		return s.groupRoute(segs)
	case "nodes":
		return s.nodeRoute(ctx, p, segs, query)
	}
	nodeID := ""
	i := 0
	for ; i < len(segs); i++ {
		if _, ok := kinds[segs[i]]; ok {
			break
		}
		n, err := s.nodes.ChildBySlug(ctx, nodeID, segs[i])
		if err != nil {
			return nil, notFound()
		}
		nodeID = n.ID
	}
	if nodeID == "" {
		return nil, notFound()
	}
	if err := s.visible(ctx, p, acl.Node, nodeID); err != nil {
		return nil, err
	}
	nodePath := "/" + strings.Join(segs[:i], "/")
	rest := segs[i:]
	if len(rest) == 0 {
		return &RouteResult{Type: "node", NodeID: ptr(nodeID), Path: nodePath}, nil
	}
	word := rest[0]
	k := kinds[word]
	if word == "surveys" {
		switch {
		case len(rest) == 1:
			return &RouteResult{Type: "surveys", NodeID: ptr(nodeID), Path: nodePath + "/surveys"}, nil
		case len(rest) == 2 && rest[1] == "new":
			return &RouteResult{Type: "survey_new", NodeID: ptr(nodeID), Path: nodePath + "/surveys/new"}, nil
		}
	}
	if len(rest) < 2 {
		return nil, notFound()
	}
	typ := k.kind
	if word == "surveys" && len(rest) == 3 {
		switch rest[2] {
		case "edit":
			typ = "survey_edit"
		case "results":
			typ = "survey_results"
		case "take":
			typ = "survey_take"
		default:
			return nil, notFound()
		}
	} else if len(rest) != 2 {
		return nil, notFound()
	}
	v, ok := s.resolvers.Load(k.kind)
	if !ok {
		return nil, notFound()
	}
	id, err := v.(Resolver)(ctx, nodeID, rest[1])
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return nil, notFound()
		}
		return nil, err
	}
	if err := s.openable(ctx, p, k.kind, id); err != nil {
		return nil, err
	}
	r := &RouteResult{Type: typ, NodeID: ptr(nodeID), ResourceID: ptr(id), Path: "/" + strings.Join(segs, "/")}
	setTyped(r, k.kind, id)
	return r, nil
}

// canonicalQuery lower-cases a UUID parentId of /nodes/new?parentId=.
func canonicalQuery(query string) string {
	q, err := url.ParseQuery(query)
	if err != nil || !isUUID(q.Get("parentId")) {
		return query
	}
	q.Set("parentId", strings.ToLower(q.Get("parentId")))
	return q.Encode()
}

func setTyped(r *RouteResult, kind, id string) {
	switch kind {
	case "list":
		r.ListID = ptr(id)
	case "library":
		r.LibraryID = ptr(id)
	case "page":
		r.PageID = ptr(id)
	case "survey":
		r.SurveyID = ptr(id)
	}
}

func (s *Service) visible(ctx context.Context, p *auth.Principal, t acl.Type, id string) error {
	lvl, err := s.acl.Level(ctx, p, acl.Ref{Type: t, ID: id})
	if err != nil {
		return err
	}
	if lvl < acl.View {
		if t == acl.Node {
			// node ids come from the caller: an unknown one is 404
			if _, err := s.nodes.SlugPath(ctx, id); err != nil {
				if fault.Is(err, fault.CodeNotFound) {
					return notFound()
				}
				return err
			}
		}
		// CONTRACT: a resource that exists but is not viewable is 403, not 404.
		return fault.Forbidden("view right on the %s is required", t)
	}
	return nil
}

func split(path string) []string {
	var out []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (s *Service) groupRoute(segs []string) (*RouteResult, error) {
	switch {
	case len(segs) == 1:
		return &RouteResult{Type: "groups", Path: "/groups"}, nil
	case len(segs) == 2 && segs[1] == "new":
		return &RouteResult{Type: "group", Action: "new", Path: "/groups/new"}, nil
	case len(segs) == 2 && isUUID(segs[1]):
		return &RouteResult{Type: "group", GroupID: ptr(segs[1]), ResourceID: ptr(segs[1]), Path: "/groups/" + segs[1]}, nil
	case len(segs) == 3 && isUUID(segs[1]) && segs[2] == "edit":
		return &RouteResult{Type: "group", Action: "edit", GroupID: ptr(segs[1]), ResourceID: ptr(segs[1]), Path: "/groups/" + segs[1] + "/edit"}, nil
	}
	return nil, notFound()
}

func (s *Service) nodeRoute(ctx context.Context, p *auth.Principal, segs []string, query string) (*RouteResult, error) {
	switch {
	case len(segs) == 2 && segs[1] == "new":
		r := &RouteResult{Type: "node", Action: "new", Path: "/nodes/new"}
		if q, err := url.ParseQuery(query); err == nil && q.Get("parentId") != "" {
			pid := q.Get("parentId")
			if !isUUID(pid) {
				return nil, fault.Validation("path", "parentId must be a UUID")
			}
			if err := s.visible(ctx, p, acl.Node, pid); err != nil {
				return nil, err
			}
			r.ParentID = ptr(pid)
			r.Path += "?parentId=" + pid
		}
		return r, nil
	case len(segs) == 3 && isUUID(segs[1]) && segs[2] == "edit":
		if err := s.visible(ctx, p, acl.Node, segs[1]); err != nil {
			return nil, err
		}
		return &RouteResult{Type: "node", Action: "edit", NodeID: ptr(segs[1]), Path: "/nodes/" + segs[1] + "/edit"}, nil
	}
	return nil, notFound()
}

// Canonical builds the canonical path of a node or of a resource in a node.
// typ is node, list, library, page, survey or surveys.
func (s *Service) Canonical(ctx context.Context, p *auth.Principal, typ, nodeID, resourceID string) (*RouteResult, error) {
	switch typ {
	case "node", "surveys":
		if nodeID == "" {
			return nil, fault.Validation("nodeId", "nodeId is required for type %s", typ)
		}
		if err := s.visible(ctx, p, acl.Node, nodeID); err != nil {
			return nil, err
		}
		np, err := s.nodes.SlugPath(ctx, nodeID)
		if err != nil {
			return nil, err
		}
		if typ == "surveys" {
			np += "/surveys"
		}
		return &RouteResult{Type: typ, NodeID: ptr(nodeID), Path: np}, nil
	case "list", "library", "page", "survey":
	default:
		return nil, fault.Validation("type", "type must be one of node, list, library, page, survey, surveys")
	}
	if resourceID == "" {
		return nil, fault.Validation("resourceId", "resourceId is required for type %s", typ)
	}
	v, ok := s.sluggers.Load(typ)
	if !ok {
		return nil, fault.NotFound(typ)
	}
	owner, slug, err := v.(Slugger)(ctx, resourceID)
	if err != nil {
		return nil, err
	}
	if nodeID != "" && nodeID != owner {
		return nil, fault.NotFound(typ)
	}
	if err := s.openable(ctx, p, typ, resourceID); err != nil {
		return nil, err
	}
	np, err := s.nodes.SlugPath(ctx, owner)
	if err != nil {
		return nil, err
	}
	r := &RouteResult{Type: typ, NodeID: ptr(owner), ResourceID: ptr(resourceID), Path: np + "/" + wordOf[typ] + "/" + slug}
	setTyped(r, typ, resourceID)
	return r, nil
}

var legacyRE = regexp.MustCompile(`^/?(?:node|nodes)/([0-9a-fA-F-]{36})(?:/(list|lists|library|libraries|page|pages|survey|surveys)(?:/([0-9a-fA-F-]{36}))?)?/?$`)
var legacyBareRE = regexp.MustCompile(`^/?(list|lists|library|libraries|page|pages|survey|surveys)/([0-9a-fA-F-]{36})/?$`)

var singular = map[string]string{"list": "list", "lists": "list", "library": "library", "libraries": "library",
	"page": "page", "pages": "page", "survey": "survey", "surveys": "survey"}

// Legacy converts an old hash-style URL to its canonical path.
func (s *Service) Legacy(ctx context.Context, p *auth.Principal, raw string) (*RouteResult, error) {
	h := strings.TrimSpace(raw)
	if i := strings.Index(h, "#"); i >= 0 {
		h = h[i+1:]
	}
	h = strings.TrimPrefix(h, "!")
	if h == "" || h == "/" {
		return &RouteResult{Type: "home", Path: "/"}, nil
	}
	if !strings.HasPrefix(h, "/") {
		h = "/" + h
	}
	if m := legacyRE.FindStringSubmatch(h); m != nil {
		nodeID := strings.ToLower(m[1])
		switch {
		case m[2] == "":
			return s.Canonical(ctx, p, "node", nodeID, "")
		case m[3] == "" && singular[m[2]] == "survey":
			return s.Canonical(ctx, p, "surveys", nodeID, "")
		case m[3] == "":
			return nil, notFound()
		}
		return s.Canonical(ctx, p, singular[m[2]], nodeID, strings.ToLower(m[3]))
	}
	if m := legacyBareRE.FindStringSubmatch(h); m != nil {
		return s.Canonical(ctx, p, singular[m[1]], "", strings.ToLower(m[2]))
	}
	// Already a slug path behind a hash: resolve it as it is.
	return s.Resolve(ctx, p, h)
}
