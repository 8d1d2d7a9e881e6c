package routes

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /routes.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/routes/resolve", "resolveRoute", "Resolve a slug path", web.User, "routes")
	op.Description = "Unknown paths answer 404; a node or resource that exists but that the caller cannot view answers 403 (404 only when it does not exist). " +
		"A list, library, page or survey answers as its own GET /lists/{id}, /libraries/{id}, /pages/{id} or /surveys/{id} answers for the caller " +
		"(the same 403 or 404, and no id): a draft survey needs edit on it, for every survey route (/surveys/<slug>, /edit, /results, /take). " +
		"/groups/<uuid> echoes the id it was given and checks nothing (GET /groups/{id} decides). " +
		"The result carries type, nodeId, resourceId plus the matching listId / libraryId / pageId / surveyId / groupId, and the canonical path."
	web.Register(api, op, h.resolve)
	op = web.Op(http.MethodGet, "/routes/canonical", "canonicalRoute", "Canonical path of a node or resource", web.User, "routes")
	op.Description = "type is node or surveys (nodeId required) or list, library, page, survey (resourceId required; nodeId optional and checked). Answers { path, type, nodeId, listId … }; 404 when absent, 403 when it exists but the caller cannot view it; a resource answers as its own GET does for the caller (a draft survey needs edit)."
	web.Register(api, op, h.canonical)
	op = web.Op(http.MethodGet, "/routes/legacy", "legacyRoute", "Convert a hash-style URL", web.User, "routes")
	op.Description = "Accepts old hash URLs such as #/nodes/<nodeId>, #/nodes/<nodeId>/lists/<listId> (also library, page, survey, singular or plural), " +
		"#/lists/<listId>, #/nodes/<nodeId>/surveys, or a slug path behind a hash, and answers the canonical route like /routes/resolve."
	web.Register(api, op, h.legacy)
}

type routesResolveIn struct {
	Path string `query:"path" required:"true" maxLength:"2000" doc:"a portal address (/intranet/hr/lists/tasks), in one of the canonical forms: / (home), /<node slugs> (node; nested nodes chained by slug from the root), /<node slugs>/lists/<slug>, …/libraries/<slug>, …/pages/<slug>, …/surveys, …/surveys/new, …/surveys/<slug>, …/surveys/<slug>/edit, …/surveys/<slug>/results, …/surveys/<slug>/take, /groups, /groups/new, /groups/<uuid>, /groups/<uuid>/edit, /nodes/new (?parentId=), /nodes/<uuid>/edit"`
}

func (h *Handler) resolve(ctx context.Context, in *routesResolveIn) (*web.Out[*RouteResult], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Resolve(ctx, p, in.Path))
}

type routesCanonicalIn struct {
	Type       string `query:"type" required:"true" enum:"node,surveys,list,library,page,survey"`
	NodeID     string `query:"nodeId" format:"uuid"`
	ResourceID string `query:"resourceId" format:"uuid"`
}

func (h *Handler) canonical(ctx context.Context, in *routesCanonicalIn) (*web.Out[*RouteResult], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Canonical(ctx, p, in.Type, in.NodeID, in.ResourceID))
}

type routesLegacyIn struct {
	Path string `query:"path" required:"true" maxLength:"2000" doc:"hash-style URL, e.g. #/nodes/<uuid>/lists/<uuid>"`
}

func (h *Handler) legacy(ctx context.Context, in *routesLegacyIn) (*web.Out[*RouteResult], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Legacy(ctx, p, in.Path))
}
