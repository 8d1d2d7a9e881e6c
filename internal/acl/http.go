package acl

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Handler serves /permissions.
type Handler struct{ svc *Permissions }

// NewHandler builds the handler.
func NewHandler(svc *Permissions) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/permissions", "listPermissions", "Explicit permission records of a resource", web.User, "permissions")
	op.Description = "Only the records set on the resource itself (no inherited ones). Needs edit on the resource: 404 when it does not exist, 403 when the caller lacks edit on it. " +
		"resourceId is a UUID, or for list_item / file a public number with listId / libraryId."
	web.Register(api, op, h.list)
	op = web.Op(http.MethodPost, "/permissions", "upsertPermission", "Create or change a permission record", web.User, "permissions")
	op.Description = "Upsert by principal + resource (200 with the record). Who may call: edit on the resource for node, page and attachment; administrators only (besides edit) for list, library, survey, list_item and file. " +
		"Non-administrators cannot grant a level above their own (403). An unknown principal answers 400 (details.field principalId)."
	web.Register(api, op, h.upsert)
	op = web.Op(http.MethodDelete, "/permissions/{id}", "deletePermission", "Delete a permission record", web.User, "permissions")
	op.Description = "Needs edit on the record's resource (administrators for list, library, survey, list_item, file); 404 when the record does not exist, 403 when the caller lacks the right on its resource."
	web.Register(api, op, h.delete)
	op = web.Op(http.MethodGet, "/permissions/check", "checkPermission", "Effective rights of the current user", web.User, "permissions")
	op.Description = "Inheritance along the resource's chain and group memberships included; administrators get delete. Never 403: without access (or for an unknown resource) permissionLevel is null and every flag false."
	web.Register(api, op, h.check)
}

type aclTargetQuery struct {
	ResourceType string `query:"resourceType" required:"true" enum:"node,list,list_item,library,page,survey,file,attachment"`
	ResourceID   string `query:"resourceId" required:"true" maxLength:"40" doc:"UUID, or a public item / file number with listId / libraryId"`
	ListID       string `query:"listId" format:"uuid" doc:"required for a numeric list_item id"`
	LibraryID    string `query:"libraryId" format:"uuid" doc:"required for a numeric file id"`
}

func (q aclTargetQuery) target() Target {
	return Target(q)
}

// PermissionRecord is a permission record as the API shows it.
type PermissionRecord struct {
	ID              string `json:"id" format:"uuid"`
	ResourceType    string `json:"resourceType"`
	ResourceID      string `json:"resourceId" format:"uuid"`
	PrincipalType   string `json:"principalType" enum:"user,group"`
	PrincipalID     string `json:"principalId" format:"uuid"`
	PrincipalName   string `json:"principalName" doc:"user display name or group name"`
	PermissionLevel string `json:"permissionLevel" enum:"view,add,edit,delete"`
}

func record(x Entry) PermissionRecord {
	return PermissionRecord{ID: x.ID, ResourceType: string(x.ResourceType), ResourceID: x.ResourceID, PrincipalType: x.PrincipalType,
		PrincipalID: x.PrincipalID, PrincipalName: x.PrincipalName, PermissionLevel: x.Level.String()}
}

func (h *Handler) list(ctx context.Context, in *aclTargetQuery) (*web.Out[[]PermissionRecord], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	es, err := h.svc.List(ctx, p, in.target())
	if err != nil {
		return nil, err
	}
	out := make([]PermissionRecord, len(es))
	for i, x := range es {
		out[i] = record(x)
	}
	return web.OK(out), nil
}

type aclUpsertIn struct {
	Body struct {
		ResourceType    string      `json:"resourceType" enum:"node,list,list_item,library,page,survey,file,attachment"`
		ResourceID      ResourceRef `json:"resourceId" doc:"UUID, or a public item / file number (a JSON number or a string of digits) with listId / libraryId"`
		ListID          string      `json:"listId,omitempty" format:"uuid"`
		LibraryID       string      `json:"libraryId,omitempty" format:"uuid"`
		PrincipalType   string      `json:"principalType" enum:"user,group"`
		PrincipalID     string      `json:"principalId" format:"uuid"`
		PermissionLevel string      `json:"permissionLevel" enum:"view,add,edit,delete"`
	}
}

func (h *Handler) upsert(ctx context.Context, in *aclUpsertIn) (*web.Out[PermissionRecord], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	x, err := h.svc.Upsert(ctx, p, Target{ResourceType: b.ResourceType, ResourceID: string(b.ResourceID), ListID: b.ListID, LibraryID: b.LibraryID},
		b.PrincipalType, b.PrincipalID, b.PermissionLevel)
	if err != nil {
		return nil, err
	}
	return web.OK(record(x)), nil
}

type aclIdPath struct {
	ID string `path:"id" format:"uuid" doc:"record id"`
}

func (h *Handler) delete(ctx context.Context, in *aclIdPath) (*web.Out[any], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Delete(ctx, p, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

// PermissionCheck is the permission check result of SPEC.md.
type PermissionCheck struct {
	PermissionLevel *string `json:"permissionLevel" enum:"view,add,edit,delete"`
	CanView         bool    `json:"canView"`
	CanAdd          bool    `json:"canAdd"`
	CanEdit         bool    `json:"canEdit"`
	CanDelete       bool    `json:"canDelete"`
}

// NewPermissionCheck describes a level.
func NewPermissionCheck(l Level) PermissionCheck {
	r := PermissionCheck{CanView: l >= View, CanAdd: l >= Add, CanEdit: l >= Edit, CanDelete: l >= Delete}
	if l > None {
		s := l.String()
		r.PermissionLevel = &s
	}
	return r
}

func (h *Handler) check(ctx context.Context, in *aclTargetQuery) (*web.Out[PermissionCheck], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	l, err := h.svc.Check(ctx, p, in.target())
	if err != nil {
		return nil, err
	}
	return web.OK(NewPermissionCheck(l)), nil
}

// ResourceRef is a resourceId in a request body: a UUID, or a public item or
// file number sent as a JSON number or a string (SPEC: REST accepts numeric
// item / file numbers).
type ResourceRef string

// UnmarshalJSON takes a string or a whole positive JSON number.
func (r *ResourceRef) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*r = ResourceRef(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fault.Validation("resourceId", "resourceId must be a UUID or an item / file number")
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || v < 1 {
		return fault.Validation("resourceId", "resourceId must be a UUID or a positive whole item / file number")
	}
	*r = ResourceRef(strconv.FormatInt(v, 10))
	return nil
}

// Schema documents the field as a string of at most 40 characters or a positive integer.
func (ResourceRef) Schema(huma.Registry) *huma.Schema {
	one := 1.0
	return &huma.Schema{OneOf: []*huma.Schema{{Type: huma.TypeString, MaxLength: ptrInt(40)}, {Type: huma.TypeInteger, Minimum: &one}}}
}

func ptrInt(n int) *int { return &n }
