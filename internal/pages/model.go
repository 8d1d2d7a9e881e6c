// Package pages owns the pages of a node: HTML content sanitised with the
// portal's one HTML policy (field.SanitizeHTML), rights along the chain page,
// node, ancestors, soft deletion to the recycle bin and slug routes
// (/<node path>/pages/<slug>).
package pages

import "time"

// Page is the page record of CONTRACT.md.
type Page struct {
	ID        string    `json:"id" format:"uuid"`
	NodeID    string    `json:"nodeId" format:"uuid"`
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	Content   string    `json:"content" doc:"HTML, sanitised by the server"`
	CreatedBy *string   `json:"createdBy" format:"uuid" doc:"user who created the page"`
	UpdatedBy *string   `json:"updatedBy" format:"uuid" doc:"user who changed the page last"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// NewPage is the input of Create.
type NewPage struct {
	NodeID  string
	Slug    string
	Title   string
	Content string
}

// Patch is the input of Update; nil fields stay.
type Patch struct {
	Slug    *string
	Title   *string
	Content *string
}

// MaxContent bounds page content (characters, before sanitising).
const MaxContent = 1_000_000

// maxTitle bounds titles (characters).
const maxTitle = 200
