package principals

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/store"
	"coreportal/internal/web"
)

// Handler serves the subject search of pickers (GET /principals/search).
type Handler struct{ db *store.DB }

// NewHandler builds the handler.
func NewHandler(db *store.DB) *Handler { return &Handler{db: db} }

// Register adds the route.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/principals/search", "searchPrincipals", "Find users and groups for a picker", web.User, "users")
	op.Description = "Any signed-in user (permission dialogs, person pickers). q (trimmed) must have at least 2 characters, " +
		"else 400 VALIDATION_ERROR; it matches a user's display name, login and email and a group's name and description " +
		"(case-insensitive). Disabled and system accounts are never listed. types: user, group or both (default both); " +
		"limit 1..20 (default 15); users come first. Each subject has principalType, id, display, subtitle (a user's login, " +
		"a group's description) and a user's email, nothing more."
	web.Register(api, op, h.search)
}

type searchIn struct {
	Q     string `query:"q" maxLength:"200" doc:"at least 2 characters after trimming"`
	Types string `query:"types" maxLength:"20" doc:"user, group or user,group (default)"`
	Limit int    `query:"limit" doc:"1..20, default 15"`
}

func (h *Handler) search(ctx context.Context, in *searchIn) (*web.Out[[]Subject], error) {
	q, err := ParseSearch(in.Q, in.Types, in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Reply(Search(ctx, h.db, q))
}
