package apppass

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/idempotency"
	"coreportal/internal/web"
)

// Handler serves /auth/app-passwords.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(s *Service) *Handler { return &Handler{svc: s} }

type appPasswordCreateIn struct {
	Body struct {
		Name  string `json:"name" minLength:"1" maxLength:"100" doc:"what the password is for (a device, a script)"`
		Scope string `json:"scope" enum:"read-only,read-write" doc:"read-only: reads only (writes answer 403); read-write: what the user may do"`
	}
}

type appPasswordIDIn struct {
	ID string `path:"id" maxLength:"64"`
}

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	c := web.Op(http.MethodPost, "/auth/app-passwords", "createAppPassword", "Create an app password (shown once)", web.User, "auth")
	c.Description = "Creates an app password of the signed-in user for WebDAV clients (/dav/, HTTP Basic with the login and this password) and scripts " +
		"(Authorization: Bearer <password> on the REST API). The password is in this answer only; it is stored as a SHA-256 hash. " +
		"scope read-only refuses every write made with it (403); read-write acts with the user's rights. At most 50 per user (409). " +
		"Needs a session signed in with the real password: a call made with an app password answers 403. " +
		"A change of the user's password (by the user or an administrator's reset) and a deactivation of the account revoke all the user's app passwords for good " +
		"(they answer 401 as unknown, also after a reactivation). The audit log records the creation, " +
		"each use from an address not seen before for that password, and the revocation."
	web.Register(api, web.Answers(c, http.StatusCreated), h.create)
	l := web.Op(http.MethodGet, "/auth/app-passwords", "listAppPasswords", "The signed-in user's app passwords", web.User, "auth")
	l.Description = "Name, scope, creation and last use (updated at most once a minute), newest first; never the password."
	web.Register(api, l, h.list)
	d := web.Op(http.MethodDelete, "/auth/app-passwords/{id}", "revokeAppPassword", "Revoke an app password", web.User, "auth")
	d.Description = "Deletes one of the caller's app passwords; it stops working at once on every instance (every use reads the database). 404 when it is not the caller's."
	web.Register(api, d, h.revoke)
}

func (h *Handler) create(ctx context.Context, in *appPasswordCreateIn) (*web.Out[AppPasswordCreated], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	idempotency.WithholdAnswer(ctx) // the answer holds the password: never kept for a retry
	c, err := h.svc.Create(ctx, p, in.Body.Name, in.Body.Scope)
	if err != nil {
		return nil, err
	}
	return web.Created(c), nil
}

func (h *Handler) list(ctx context.Context, _ *struct{}) (*web.Out[[]AppPassword], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	l, err := h.svc.List(ctx, p)
	if err != nil {
		return nil, err
	}
	return web.OK(l), nil
}

func (h *Handler) revoke(ctx context.Context, in *appPasswordIDIn) (*web.Out[any], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Revoke(ctx, p, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
