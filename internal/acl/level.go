// Package acl is the one place that decides rights: permission levels,
// the inheritance chains of SPEC.md ("Authorization model (ACL)"), explicit
// records, the effective-level cache and the /permissions endpoints.
//
// How services use it:
//   - Register every securable resource with its parent in the creating
//     transaction (node: parent node or nil; list/library/page/survey: node;
//     item: list; attachment: item; file or folder: parent folder or library).
//     Move on re-parenting, Forget / ForgetTree on hard delete.
//   - Require(ctx, p, ref, level) before acting: 404 when the resource does
//     not exist, 403 when it exists and the caller lacks the level.
//   - Listings filter in SQL with the conditions Visibility (rows below a
//     container) and Reach (search entries) compile from the chain rule.
//   - SetInherits is the break/restore transition of "Item inheritance flag".
//
// Storage: acl_objects (id, type, parent_id, inherits) is the registry the
// chain walk follows with one recursive query, stopping after an isolated
// resource; acl_entries holds explicit records (level 1..4). Effective levels
// are cached per (user, resource) and dropped on every change, here and on
// other instances through the bus topic "acl.changed" (30 s TTL as a net).
package acl

import (
	"coreportal/internal/fault"
)

// Level is a permission level; each includes the previous ones.
type Level int

const (
	None Level = iota
	View
	Add
	Edit
	Delete
)

var levelNames = [...]string{"", "view", "add", "edit", "delete"}

// ParseLevel reads "view", "add", "edit" or "delete".
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if i > 0 && n == s {
			return Level(i), nil
		}
	}
	return None, fault.Validation("permissionLevel", "permissionLevel must be one of view, add, edit, delete")
}

// String is the REST name of the level ("" for None).
func (l Level) String() string {
	if l < None || l > Delete {
		return ""
	}
	return levelNames[l]
}

// Type is a securable resource type.
type Type string

const (
	Node       Type = "node"
	List       Type = "list"
	ListItem   Type = "list_item"
	Library    Type = "library"
	Page       Type = "page"
	Survey     Type = "survey"
	File       Type = "file"
	Attachment Type = "attachment"
)

// Types lists every resource type in the order of SPEC.md.
var Types = []Type{Node, List, ListItem, Library, Page, Survey, File, Attachment}

// Valid reports whether t is a known resource type.
func (t Type) Valid() bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// adminManaged are the types whose records only administrators may change
// (SPEC.md, "Who may call POST/DELETE /permissions").
func (t Type) adminManaged() bool {
	switch t {
	case List, Library, Survey, ListItem, File:
		return true
	}
	return false
}

// Ref names one resource.
type Ref struct {
	Type Type
	ID   string // UUID
}

// Principal types of ACL records.
const (
	PrincipalUser  = "user"
	PrincipalGroup = "group"
)
