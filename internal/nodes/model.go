// Package nodes owns the tree of sections: create, read, update, move and
// delete nodes, each registered in the ACL with its parent node.
package nodes

import (
	"encoding/json"
	"reflect"
	"regexp"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
)

// Node is the node record of CONTRACT.md.
type Node struct {
	ID          string    `json:"id" format:"uuid"`
	ParentID    *string   `json:"parentId" format:"uuid"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	SortOrder   int       `json:"sortOrder"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Parent returns the parent id ("" at root).
func (n *Node) Parent() string {
	if n.ParentID == nil {
		return ""
	}
	return *n.ParentID
}

var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// reservedSlugs are path words of the canonical routes (a node named like
// one would make /<node>/lists/<slug> ambiguous) and the first segments of
// the server's own paths, which the console at / never sees.
var reservedSlugs = map[string]bool{"lists": true, "libraries": true, "pages": true, "surveys": true, "groups": true, "nodes": true,
	"api": true, "assets": true, "health": true, "ready": true, "metrics": true, "debug": true}

// CheckSlug validates a slug of a node, list, library, page or survey:
// lowercase letters, digits and single hyphens between them, at most 100 characters.
func CheckSlug(field, slug string) error {
	if slug == "" {
		return fault.Validation(field, "%s is required", field)
	}
	if len(slug) > 100 {
		return fault.Validation(field, "%s must have at most 100 characters", field)
	}
	if !slugRE.MatchString(slug) {
		return fault.Validation(field, "%s may contain lowercase letters, digits and hyphens only (no leading, trailing or double hyphen)", field)
	}
	return nil
}

func checkNodeSlug(slug string) error {
	if err := CheckSlug("slug", slug); err != nil {
		return err
	}
	if reservedSlugs[slug] {
		return fault.Validation("slug", "slug %q is reserved for routes", slug)
	}
	return nil
}

// OptString is a JSON field that distinguishes absent, null and a value
// (PATCH {"parentId": null} moves a node to the root; no key leaves it).
type OptString struct {
	Sent  bool
	Null  bool
	Value string
}

// UnmarshalJSON records that the key was sent.
func (o *OptString) UnmarshalJSON(b []byte) error {
	o.Sent = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Schema documents the field as a nullable string.
func (o OptString) Schema(r huma.Registry) *huma.Schema {
	s := r.Schema(reflect.TypeOf(""), true, "")
	s.Nullable = true
	return s
}
