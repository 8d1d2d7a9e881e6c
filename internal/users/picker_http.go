package users

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// PickerHandler serves the user picker and the public profile endpoints.
type PickerHandler struct{ svc *Service }

// NewPickerHandler builds the handler.
func NewPickerHandler(svc *Service) *PickerHandler { return &PickerHandler{svc: svc} }

// Register adds the routes.
func (h *PickerHandler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/users", "searchUsers", "User picker for rights", web.Admin, "users")
	op.Description = "Administrators only. q matches login, display name and email (case-insensitive); paged like every listing. The system account is never listed."
	web.Register(api, op, h.search)
	op = web.Op(http.MethodGet, "/users/{id}/profile", "getUserProfile", "UserProfile card of a user", web.User, "users")
	op.Description = "Any signed-in user. card_fields holds the directory fields chosen by personCardVisibleFields (default department, title, telephoneNumber, mobile, email) that have a value."
	web.Register(api, op, h.profile)
	op = web.Op(http.MethodGet, "/users/{id}/avatar", "getUserAvatar", "Photo of a user", web.User, "users")
	op.Description = "The stored photo (image/jpeg unless the directory gave another type); 404 NOT_FOUND when the user has none. Cache-Control: private, max-age=300; the ETag is the photo's SHA-256, and If-None-Match with it answers 304 without the body."
	op.Responses = map[string]*huma.Response{"200": web.FileAnswer("the photo", "image/jpeg", "image/*")}
	web.Register(api, op, h.avatar)
	op = web.Op(http.MethodGet, "/users/{id}/org-chain", "getUserOrgChain", "Managers from the top down to the user", web.User, "users")
	op.Description = "chain[] starts at the topmost manager and ends with the user; a user without a manager gives a chain of one."
	web.Register(api, op, h.orgChain)
	op = web.Op(http.MethodGet, "/users/{id}/org-children", "getUserOrgChildren", "Direct subordinates of a user", web.User, "users")
	op.Description = "children[] are the active users whose manager is this user; empty when none."
	web.Register(api, op, h.orgChildren)
}

type pickerSearchIn struct {
	web.PageQuery
	Q string `query:"q" maxLength:"200" doc:"matches login, display name and email"`
}

func (h *PickerHandler) search(ctx context.Context, in *pickerSearchIn) (*web.PagedOut[[]Summary, web.PageMeta], error) {
	rows, total, err := h.svc.Search(ctx, in.Q, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []Summary{}
	}
	return web.Paged(rows, web.NewPageMeta(in.PageQuery, total)), nil
}

func (h *PickerHandler) profile(ctx context.Context, in *pickerIDPath) (*web.Out[UserProfile], error) {
	return web.Reply(h.svc.Profile(ctx, in.ID))
}

type pickerAvatarIn struct {
	ID          string `path:"id" format:"uuid" doc:"user id"`
	IfNoneMatch string `header:"If-None-Match" doc:"the ETag of a copy the client holds: 304 when the photo is unchanged"`
}

type pickerAvatarOut struct {
	Status       int
	ContentType  string `header:"Content-Type"`
	CacheControl string `header:"Cache-Control"`
	ETag         string `header:"ETag"`
	Body         []byte
}

func (h *PickerHandler) avatar(ctx context.Context, in *pickerAvatarIn) (*pickerAvatarOut, error) {
	notModified := false
	f, err := h.svc.Avatar(ctx, in.ID, func(hash string) bool {
		notModified = etagMatches(in.IfNoneMatch, `"`+hash+`"`)
		return !notModified
	})
	if err != nil {
		return nil, err
	}
	out := &pickerAvatarOut{Status: http.StatusOK, ContentType: f.ContentType, CacheControl: "private, max-age=300", ETag: `"` + f.Hash + `"`}
	if notModified {
		out.Status, out.ContentType = http.StatusNotModified, ""
		return out, nil
	}
	defer f.Close()
	if out.Body, err = io.ReadAll(io.LimitReader(f, 10<<20)); err != nil {
		return nil, err
	}
	return out, nil
}

// etagMatches reports whether an If-None-Match list names etag (or is *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

type pickerChainOut struct {
	Chain []UserOrgNode `json:"chain"`
}

func (h *PickerHandler) orgChain(ctx context.Context, in *pickerIDPath) (*web.Out[pickerChainOut], error) {
	c, err := h.svc.OrgChain(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return web.OK(pickerChainOut{Chain: c}), nil
}

type pickerChildrenOut struct {
	Children []UserOrgNode `json:"children"`
}

func (h *PickerHandler) orgChildren(ctx context.Context, in *pickerIDPath) (*web.Out[pickerChildrenOut], error) {
	c, err := h.svc.OrgChildren(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return web.OK(pickerChildrenOut{Children: c}), nil
}

type pickerIDPath struct {
	ID string `path:"id" format:"uuid" doc:"user id"`
}
