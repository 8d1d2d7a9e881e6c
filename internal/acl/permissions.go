package acl

import (
	"context"
	"strconv"
	"strings"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// PrincipalExists tells whether a user or group id exists (wired to the users
// and groups services, which acl cannot import).
type PrincipalExists func(ctx context.Context, principalType, id string) (bool, error)

// Permissions holds the rules of the /permissions endpoints.
type Permissions struct {
	e      *Engine
	exists PrincipalExists
}

// NewPermissions builds the permission endpoints' service.
func NewPermissions(e *Engine, exists PrincipalExists) *Permissions {
	return &Permissions{e: e, exists: exists}
}

// Target is a resource as the REST interface names it.
type Target struct {
	ResourceType string
	ResourceID   string // UUID, or a public number with ListID / LibraryID
	ListID       string
	LibraryID    string
}

// Resolve turns a target into a reference. Numbers need listId (list_item) or
// libraryId (file); unknown numbers give fault.NotFound.
func (e *Engine) Resolve(ctx context.Context, t Target) (Ref, error) {
	typ := Type(t.ResourceType)
	if !typ.Valid() {
		return Ref{}, fault.Validation("resourceType", "resourceType must be one of node, list, list_item, library, page, survey, file, attachment")
	}
	id := strings.TrimSpace(t.ResourceID)
	if id == "" {
		return Ref{}, fault.Validation("resourceId", "resourceId is required")
	}
	if validID(strings.ToLower(id)) {
		return Ref{Type: typ, ID: strings.ToLower(id)}, nil
	}
	num, err := strconv.ParseInt(id, 10, 64)
	if err != nil || num <= 0 || (typ != ListItem && typ != File) {
		return Ref{}, fault.Validation("resourceId", "resourceId must be a UUID (or a positive item / file number with listId / libraryId)")
	}
	scopeField, scope := "listId", t.ListID
	if typ == File {
		scopeField, scope = "libraryId", t.LibraryID
	}
	if scope == "" {
		return Ref{}, fault.Validation(scopeField, "%s is required for a numeric %s id", scopeField, typ)
	}
	if !validID(strings.ToLower(scope)) {
		return Ref{}, fault.Validation(scopeField, "%s must be a UUID", scopeField)
	}
	fn, ok := e.resolver(typ)
	if !ok {
		return Ref{}, fault.NotFound(string(typ))
	}
	uid, err := fn(ctx, strings.ToLower(scope), num)
	if err != nil {
		if store.IsNotFound(err) {
			return Ref{}, fault.NotFound(string(typ))
		}
		return Ref{}, err
	}
	return Ref{Type: typ, ID: uid}, nil
}

// checkManage enforces SPEC.md's table "Who may call POST/DELETE /permissions":
// edit on the resource, plus the administrator role for list, library,
// survey, list_item and file.
func (s *Permissions) checkManage(ctx context.Context, p *auth.Principal, ref Ref) (Level, error) {
	lvl, err := s.e.Level(ctx, p, ref)
	if err != nil {
		return None, err
	}
	// a record's type must match the registered resource: a wrong type is "not found"
	t, _, _, err := s.e.st.object(ctx, ref.ID)
	if store.IsNotFound(err) || err == nil && t != ref.Type {
		return None, fault.NotFound(string(ref.Type))
	}
	if err != nil {
		return None, err
	}
	if lvl < Edit {
		return None, fault.Forbidden("edit right on this %s is required to manage its permissions", ref.Type)
	}
	if ref.Type.adminManaged() && !p.IsAdmin {
		return None, fault.Forbidden("only administrators manage permissions of a %s", ref.Type)
	}
	return lvl, nil
}

// List returns the explicit records of a resource (edit on it).
func (s *Permissions) List(ctx context.Context, p *auth.Principal, t Target) ([]Entry, error) {
	ref, err := s.e.Resolve(ctx, t)
	if err != nil {
		return nil, err
	}
	// a resource of another type is not this resource: 404, like checkManage
	if ok, err := s.e.IsA(ctx, ref); err != nil {
		return nil, err
	} else if !ok {
		return nil, fault.NotFound(string(ref.Type))
	}
	if err := s.e.Require(ctx, p, ref, Edit); err != nil {
		return nil, err
	}
	return s.e.Entries(ctx, ref)
}

// Upsert writes the record of one principal on a resource. Non-administrators
// cannot grant a level above their own.
func (s *Permissions) Upsert(ctx context.Context, p *auth.Principal, t Target, principalType, principalID, level string) (Entry, error) {
	ref, err := s.e.Resolve(ctx, t)
	if err != nil {
		return Entry{}, err
	}
	lvl, err := ParseLevel(level)
	if err != nil {
		return Entry{}, err
	}
	if principalType != PrincipalUser && principalType != PrincipalGroup {
		return Entry{}, fault.Validation("principalType", "principalType must be user or group")
	}
	principalID = strings.ToLower(strings.TrimSpace(principalID))
	if !validID(principalID) {
		return Entry{}, fault.Validation("principalId", "principalId must be a UUID")
	}
	own, err := s.checkManage(ctx, p, ref)
	if err != nil {
		return Entry{}, err
	}
	if !p.IsAdmin && lvl > own {
		return Entry{}, fault.Forbidden("you cannot grant %s: your own level on this %s is %s", lvl, ref.Type, own)
	}
	ok, err := s.exists(ctx, principalType, principalID)
	if err != nil {
		return Entry{}, err
	}
	if !ok {
		return Entry{}, fault.Validation("principalId", "no %s with id %s", principalType, principalID)
	}
	id, err := s.e.Grant(ctx, ref, principalType, principalID, lvl)
	if err != nil {
		return Entry{}, err
	}
	es, err := s.e.Entries(ctx, ref)
	if err != nil {
		return Entry{}, err
	}
	for _, x := range es {
		if x.ID == id {
			return x, nil
		}
	}
	return Entry{ID: id, ResourceType: ref.Type, ResourceID: ref.ID, PrincipalType: principalType, PrincipalID: principalID, Level: lvl}, nil
}

// Delete removes a record by id (edit on its resource; administrators for the admin-managed types).
func (s *Permissions) Delete(ctx context.Context, p *auth.Principal, id string) error {
	x, err := s.e.EntryByID(ctx, strings.ToLower(id))
	if store.IsNotFound(err) {
		return fault.NotFound("permission record")
	}
	if err != nil {
		return err
	}
	if _, err := s.checkManage(ctx, p, Ref{Type: x.ResourceType, ID: x.ResourceID}); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return fault.NotFound("permission record")
		}
		return err
	}
	return s.e.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		audit.Record(ctx, audit.Entry{Action: audit.ACLRevoke, ResourceType: string(x.ResourceType), ResourceID: x.ResourceID,
			Before: map[string]any{"recordId": x.ID, "principalType": x.PrincipalType, "principalId": x.PrincipalID, "permissionLevel": x.Level.String()}})
		return s.e.Revoke(ctx, x.ID)
	})
}

// Check returns the caller's effective level; never an error for missing
// access (None), only for bad input.
func (s *Permissions) Check(ctx context.Context, p *auth.Principal, t Target) (Level, error) {
	ref, err := s.e.Resolve(ctx, t)
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return None, nil
		}
		return None, err
	}
	t2, _, _, err := s.e.st.object(ctx, ref.ID)
	if store.IsNotFound(err) || err == nil && t2 != ref.Type {
		return None, nil
	}
	if err != nil {
		return None, err
	}
	return s.e.Level(ctx, p, ref)
}
