package users

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /auth/me and the user administration.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	me := web.Op(http.MethodGet, "/auth/me", "getMe", "Current user's full card", web.User, "auth")
	me.Description = "The signed-in user's card: identity, roles and profile fields."
	web.Register(api, me, h.me)
	web.Register(api, web.Op(http.MethodGet, "/admin/users", "listUsers", "List users (q matches login, name, email)", web.Admin, "admin-users"), h.list)
	create := web.Op(http.MethodPost, "/admin/users", "createUser", "Create a local user", web.Admin, "admin-users")
	create.Description += " The password must have 8 to 256 characters, not only white space, must not be one of the 10,000 most common passwords and must not equal the user's login or e-mail (ignoring case); otherwise 400 VALIDATION_ERROR on field password."
	web.Register(api, web.Answers(create, http.StatusCreated), h.create)
	web.Register(api, web.Op(http.MethodGet, "/admin/users/{id}", "getUser", "Full card of a user", web.Admin, "admin-users"), h.get)
	update := web.Op(http.MethodPatch, "/admin/users/{id}", "updateUser", "Change name, email, active flag, administrator role or manager", web.Admin, "admin-users")
	update.Description += " Deactivating the user or removing the administrator role signs the user out everywhere for good: every token issued before stops working at once and re-activation does not revive them."
	web.Register(api, update, h.update)
	reset := web.Op(http.MethodPost, "/admin/users/{id}/reset-password", "resetPassword", "Set a new password (local users only)", web.Admin, "admin-users")
	reset.Description += " Every token of the user issued before stops working. The password must have 8 to 256 characters, not only white space, must not be one of the 10,000 most common passwords and must not equal the user's login or e-mail (ignoring case); otherwise 400 VALIDATION_ERROR on field password."
	web.Register(api, reset, h.resetPassword)
}

type IDPath struct {
	ID string `path:"id" format:"uuid" doc:"user id"`
}

func (h *Handler) me(ctx context.Context, _ *struct{}) (*web.Out[Card], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Card(ctx, p.UserID))
}

type listIn struct {
	web.PageQuery
	Q             string `query:"q" maxLength:"200" doc:"matches login, display name and email, case-insensitive"`
	IsPortalAdmin string `query:"isPortalAdmin" enum:"true,false," doc:"true = administrators only, false = users without the role"`
}

func (h *Handler) list(ctx context.Context, in *listIn) (*web.PagedOut[[]Summary, web.PageMeta], error) {
	var isAdmin *bool
	if in.IsPortalAdmin != "" {
		v := in.IsPortalAdmin == "true"
		isAdmin = &v
	}
	rows, total, err := h.svc.List(ctx, in.Q, isAdmin, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []Summary{}
	}
	return web.Paged(rows, web.NewPageMeta(in.PageQuery, total)), nil
}

type createIn struct {
	Body struct {
		Login       string `json:"login" maxLength:"100"`
		Password    string `json:"password" maxLength:"256"`
		DisplayName string `json:"displayName,omitempty" maxLength:"200"`
		Email       string `json:"email,omitempty" maxLength:"254"`
		IsCoreAdmin bool   `json:"isCoreAdmin,omitempty"`
	}
}

func (h *Handler) create(ctx context.Context, in *createIn) (*web.Out[Card], error) {
	b := in.Body
	u, err := h.svc.Create(ctx, NewUser{Login: b.Login, Password: b.Password, DisplayName: b.DisplayName, Email: b.Email, IsCoreAdmin: b.IsCoreAdmin})
	if err != nil {
		return nil, err
	}
	return web.Created(u.card()), nil
}

func (h *Handler) get(ctx context.Context, in *IDPath) (*web.Out[Card], error) {
	return web.Reply(h.svc.Card(ctx, in.ID))
}

type updateIn struct {
	IDPath
	Body struct {
		web.ReadOnlyFrom[Card]
		DisplayName *string `json:"displayName,omitempty" maxLength:"200"`
		Email       *string `json:"email,omitempty" maxLength:"254"`
		IsActive    *bool   `json:"isActive,omitempty"`
		IsCoreAdmin *bool   `json:"isCoreAdmin,omitempty"`
		// ManagerUserID sets the manager shown in the org chart.
		ManagerUserID *string `json:"managerUserId,omitempty" maxLength:"36" doc:"the user's manager (org chart: /users/{id}/org-chain and org-children); empty string clears it. Must be another existing user (400 VALIDATION_ERROR details.field managerUserId otherwise). For directory users the next directory sync sets it from the directory's manager attribute again."`
	}
}

func (h *Handler) update(ctx context.Context, in *updateIn) (*web.Out[Card], error) {
	b := in.Body
	u, err := h.svc.Update(ctx, auth.FromContext(ctx), in.ID, Patch{DisplayName: b.DisplayName, Email: b.Email, IsActive: b.IsActive, IsCoreAdmin: b.IsCoreAdmin, ManagerUserID: b.ManagerUserID})
	if err != nil {
		return nil, err
	}
	return web.OK(u.card()), nil
}

type resetIn struct {
	IDPath
	Body struct {
		Password string `json:"password" maxLength:"256"`
	}
}

func (h *Handler) resetPassword(ctx context.Context, in *resetIn) (*web.Out[any], error) {
	if err := h.svc.ResetPassword(ctx, in.ID, in.Body.Password); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
