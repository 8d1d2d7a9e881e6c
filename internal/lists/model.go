// Package lists owns lists, their typed fields, items (one table per list,
// see ARCHITECTURE.md "Storage of list items"), views, quick edit, item
// versions, attachments and the lookup/person pickers.
package lists

import (
	"encoding/json"
	"time"

	"coreportal/internal/field"
)

// List is one row of the lists table.
type List struct {
	ID                string
	NodeID            string
	Slug              string
	Title             string
	Description       string
	FormConfig        json.RawMessage
	VersioningEnabled bool
	SearchEnabled     bool
	Table             string
	NextCol           int
	CreatedBy         string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ListOut is the API shape of a list.
type ListOut struct {
	ID                string          `json:"id" format:"uuid"`
	NodeID            string          `json:"nodeId" format:"uuid"`
	Title             string          `json:"title"`
	Slug              string          `json:"slug"`
	Description       string          `json:"description"`
	Fields            []FieldOut      `json:"fields,omitempty"`
	FormConfig        json.RawMessage `json:"form_config"`
	VersioningEnabled bool            `json:"versioning_enabled"`
	SearchEnabled     bool            `json:"search_enabled"`
	CreatedAt         time.Time       `json:"createdAt"`
	UpdatedAt         time.Time       `json:"updatedAt"`
}

func (l *List) out(fields []*field.Def) ListOut {
	o := ListOut{ID: l.ID, NodeID: l.NodeID, Title: l.Title, Slug: l.Slug, Description: l.Description,
		FormConfig: l.FormConfig, VersioningEnabled: l.VersioningEnabled, SearchEnabled: l.SearchEnabled,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if len(o.FormConfig) == 0 {
		o.FormConfig = json.RawMessage("{}")
	}
	if fields != nil {
		o.Fields = fieldsOut(fields)
	}
	return o
}

// FieldOut is the API shape of a field.
type FieldOut struct {
	ID           string              `json:"id" format:"uuid"`
	ListID       string              `json:"listId" format:"uuid"`
	InternalName string              `json:"internal_name"`
	Title        string              `json:"title"`
	FieldType    string              `json:"fieldType"`
	IsRequired   bool                `json:"is_required"`
	SortOrder    int                 `json:"sortOrder"`
	Settings     field.FieldSettings `json:"settings"`
	IsSystem     bool                `json:"is_system"`
	Editable     bool                `json:"editable" doc:"false for created_by and item_number, which the server maintains"`
}

func fieldsOut(fs []*field.Def) []FieldOut {
	out := make([]FieldOut, 0, len(fs))
	for _, f := range fs {
		out = append(out, FieldOut{ID: f.ID, ListID: f.ListID, InternalName: f.InternalName, Title: f.Title, FieldType: f.Type,
			IsRequired: f.Required, SortOrder: f.SortOrder, Settings: f.Settings, IsSystem: f.System, Editable: editable(f)})
	}
	return out
}

// System field internal names.
const (
	sysTitle      = "title"
	sysCreatedBy  = "created_by"
	sysItemNumber = "item_number"
)

func editable(f *field.Def) bool {
	return f.InternalName != sysCreatedBy && f.InternalName != sysItemNumber
}

// Item is a stored list item.
type Item struct {
	Number      int64
	GUID        string
	Values      map[string]any // field UUID -> API value
	CreatedBy   string
	UpdatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Inherits    bool
	UpdatedName string
}

// ItemUserRef is the display block of a user in item answers. It carries
// the display name only: the user's id is beside it (updated_by), and a
// second copy on every item of a listing only made answers longer.
type ItemUserRef struct {
	DisplayName string `json:"display_name"`
}

// ItemPermissions are the caller's rights on an item.
type ItemPermissions struct {
	CanEdit              bool `json:"canEdit"`
	CanDelete            bool `json:"canDelete"`
	CanManagePermissions bool `json:"canManagePermissions"`
}

// ItemOut is the API shape of an item.
type ItemOut struct {
	ID                  int64            `json:"id"`
	GUID                string           `json:"guid" format:"uuid"`
	FieldValues         map[string]any   `json:"field_values"`
	CreatedAt           time.Time        `json:"created_at"`
	CreatedBy           string           `json:"created_by"`
	UpdatedAt           time.Time        `json:"updated_at"`
	UpdatedBy           string           `json:"updated_by"`
	UpdatedByUser       ItemUserRef      `json:"updated_by_user" doc:"display_name of updated_by (its id is updated_by)"`
	InheritsPermissions bool             `json:"inherits_permissions"`
	Permissions         *ItemPermissions `json:"permissions,omitempty"`
}

func (it *Item) out(perm *ItemPermissions) ItemOut {
	return ItemOut{ID: it.Number, GUID: it.GUID, FieldValues: it.Values, CreatedAt: it.CreatedAt, CreatedBy: it.CreatedBy,
		UpdatedAt: it.UpdatedAt, UpdatedBy: it.UpdatedBy, UpdatedByUser: ItemUserRef{DisplayName: it.UpdatedName},
		InheritsPermissions: it.Inherits, Permissions: perm}
}
