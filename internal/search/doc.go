// Package search keeps one full-text index of every searchable resource
// (list items, library files, pages, nodes, lists, libraries, surveys) and
// answers GET /search with the caller's rights applied in the query.
package search

import (
	"context"
	"time"
)

// Resource types of index entries (the type parameter of GET /search).
const (
	TypeItem    = "item"
	TypeFile    = "file"
	TypePage    = "page"
	TypeNode    = "node"
	TypeList    = "list"
	TypeLibrary = "library"
	TypeSurvey  = "survey"
)

// Types lists every entry type.
var Types = []string{TypeItem, TypeFile, TypePage, TypeNode, TypeList, TypeLibrary, TypeSurvey}

// Doc is one resource as the index sees it.
type Doc struct {
	Type        string
	ID          string // the resource's access-control id (item or file guid, page id, …)
	NodeID      string
	ContainerID string // list, library, page, survey; the node itself for nodes
	Slug        string // slug of the container (list, library, page, survey); empty for nodes
	Number      int64  // item or file number
	Title       string
	Body        string
	UpdatedAt   time.Time
	// Created says the resource was created in this transaction directly
	// under its container and inheriting its rights, as every new list item
	// and a new file or folder at the root of a library is: its access chain
	// is then empty and it has no entry yet, so the index writes it with one
	// plain insert, without looking the chain up. Leave it false when unsure
	// (an item restored from the bin, a file inside a folder): the chain is
	// then read from the access-control registry.
	Created bool
}

// Index is what feature services call, inside the transaction of their save
// (ctx carries it), to keep the index in step. The wiring passes the search
// service; a nil Index is allowed in unit tests (use Nop).
type Index interface {
	// Put adds or replaces the entry of d.
	Put(ctx context.Context, d Doc) error
	// Remove drops the entries of the given resource ids.
	Remove(ctx context.Context, ids ...string) error
	// RemoveContainer drops the container's entry and every entry inside it.
	RemoveContainer(ctx context.Context, containerID string) error
}
