package groups

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/users"
	"coreportal/internal/web"
)

// Handler serves /groups.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/groups", "listGroups", "All groups, or a picker search", web.User, "groups")
	op.Description = "Without q (or with a q of only spaces): every group with members_count, administrators only. With q (trimmed): up to 20 groups whose name or description contains q (case-insensitive), for any signed-in user (pickers)."
	web.Register(api, op, h.list)
	op = web.Op(http.MethodPost, "/groups", "createGroup", "Create a portal group", web.Admin, "groups")
	web.Register(api, web.Answers(op, http.StatusCreated), h.create)
	op = web.Op(http.MethodGet, "/groups/{id}", "getGroup", "Group with members", web.Admin, "groups")
	web.Register(api, op, h.get)
	op = web.Op(http.MethodPatch, "/groups/{id}", "updateGroup", "Rename a portal group", web.Admin, "groups")
	op.Description = "Administrators only. domain_linked groups answer 400 VALIDATION_ERROR: directory sync manages them."
	web.Register(api, op, h.update)
	op = web.Op(http.MethodDelete, "/groups/{id}", "deleteGroup", "Delete a portal group", web.Admin, "groups")
	op.Description = "Administrators only. The group's permission records are deleted with it (they stop applying at once). domain_linked groups answer 400 VALIDATION_ERROR."
	web.Register(api, op, h.delete)
	op = web.Op(http.MethodPost, "/groups/{id}/members", "addGroupMember", "Add a member", web.Admin, "groups")
	op.Description = "Administrators only; portal groups only (domain_linked: 400). Body { userId } for an existing user, or the directory identity { externalId, login, displayName, email }: the user is found by externalId, then by login among domain users not yet linked to the directory (they get the externalId), else created as a domain user. A login held by a local account or by another directory account answers 409 CONFLICT (details.field login): local accounts are never taken over from the directory. userId must be in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (any case). Adding a member twice is a no-op. Answers the group with members."
	web.Register(api, op, h.addMember)
	op = web.Op(http.MethodDelete, "/groups/{id}/members/{userId}", "removeGroupMember", "Remove a member", web.Admin, "groups")
	op.Description = "Administrators only; portal groups only (domain_linked: 400); 404 when the user is not a member."
	web.Register(api, op, h.removeMember)
}

type groupsListIn struct {
	Q string `query:"q" maxLength:"200" doc:"search in name and description; when given, any signed-in user may call and at most 20 groups come back"`
}

func (h *Handler) list(ctx context.Context, in *groupsListIn) (*web.Out[[]*Group], error) {
	// Decide on the trimmed q, as the service searches with it: a blank q
	// (spaces only) is the full listing with members_count, administrators only.
	q := strings.TrimSpace(in.Q)
	if q == "" {
		if _, err := auth.RequireAdmin(ctx); err != nil {
			return nil, err
		}
	}
	return web.Reply(h.svc.List(ctx, q))
}

type groupsIdPath struct {
	ID string `path:"id" format:"uuid" doc:"group id"`
}

type groupsCreateIn struct {
	Body struct {
		Name        string `json:"name" maxLength:"200"`
		Description string `json:"description,omitempty" maxLength:"2000"`
	}
}

func (h *Handler) create(ctx context.Context, in *groupsCreateIn) (*web.Out[*GroupDetail], error) {
	return web.ReplyCreated(h.svc.Create(ctx, in.Body.Name, in.Body.Description))
}

func (h *Handler) get(ctx context.Context, in *groupsIdPath) (*web.Out[*GroupDetail], error) {
	return web.Reply(h.svc.Get(ctx, in.ID))
}

type groupsUpdateIn struct {
	ID   string `path:"id" format:"uuid" doc:"group id"`
	Body struct {
		web.ReadOnlyFrom[*GroupDetail]
		Name        *string `json:"name,omitempty" maxLength:"200"`
		Description *string `json:"description,omitempty" maxLength:"2000"`
	}
}

func (h *Handler) update(ctx context.Context, in *groupsUpdateIn) (*web.Out[*GroupDetail], error) {
	return web.Reply(h.svc.Update(ctx, in.ID, in.Body.Name, in.Body.Description))
}

func (h *Handler) delete(ctx context.Context, in *groupsIdPath) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

type groupsAddMemberIn struct {
	ID   string `path:"id" format:"uuid" doc:"group id"`
	Body struct {
		UserID      string `json:"userId,omitempty" format:"uuid" doc:"an existing user"`
		ExternalID  string `json:"externalId,omitempty" maxLength:"200" doc:"directory id (SID) for the directory upsert"`
		Login       string `json:"login,omitempty" maxLength:"100"`
		DisplayName string `json:"displayName,omitempty" maxLength:"200"`
		Email       string `json:"email,omitempty" maxLength:"254"`
	}
}

func (h *Handler) addMember(ctx context.Context, in *groupsAddMemberIn) (*web.Out[*GroupDetail], error) {
	b := in.Body
	m := NewMember{UserID: b.UserID}
	if b.ExternalID != "" || b.Login != "" {
		m.Directory = &users.DirectoryUser{ExternalID: b.ExternalID, Login: b.Login, DisplayName: b.DisplayName, Email: b.Email}
	}
	return web.Reply(h.svc.AddMember(ctx, in.ID, m))
}

type groupsMemberPath struct {
	ID     string `path:"id" format:"uuid" doc:"group id"`
	UserID string `path:"userId" format:"uuid"`
}

func (h *Handler) removeMember(ctx context.Context, in *groupsMemberPath) (*web.Out[any], error) {
	if err := h.svc.RemoveMember(ctx, in.ID, in.UserID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
