// Package libraries owns document libraries: the library records, their
// custom fields (the field types of internal/field), files and folders with
// their versions, downloads, rights along the file chain (file or folder,
// parent folders, library, node, ancestors) and the recycle bin kinds
// "library" and "file". Lists reach library files for their lookups through
// Lookups (lookup.go), never through this package's store.
package libraries

import (
	"encoding/json"
	"time"

	"coreportal/internal/field"
)

// Library is one row of the libraries table.
type Library struct {
	ID          string
	NodeID      string
	Slug        string
	Title       string
	Description string
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// LibraryOut is the API shape of a library (CONTRACT.md).
type LibraryOut struct {
	ID          string            `json:"id" format:"uuid"`
	NodeID      string            `json:"nodeId" format:"uuid"`
	Slug        string            `json:"slug"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Fields      []LibraryFieldOut `json:"fields"`
	CreatedAt   time.Time         `json:"createdAt"`
	UpdatedAt   time.Time         `json:"updatedAt"`
}

func (l *Library) out(fields []*field.Def) LibraryOut {
	return LibraryOut{ID: l.ID, NodeID: l.NodeID, Slug: l.Slug, Title: l.Title, Description: l.Description,
		Fields: fieldsOut(fields), CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
}

// LibraryFieldOut is the API shape of a library field.
type LibraryFieldOut struct {
	ID           string              `json:"id" format:"uuid"`
	LibraryID    string              `json:"libraryId" format:"uuid"`
	InternalName string              `json:"internal_name"`
	Title        string              `json:"title"`
	FieldType    string              `json:"fieldType"`
	IsRequired   bool                `json:"is_required"`
	SortOrder    int                 `json:"sortOrder"`
	Settings     field.FieldSettings `json:"settings"`
}

func fieldsOut(fs []*field.Def) []LibraryFieldOut {
	out := make([]LibraryFieldOut, 0, len(fs))
	for _, f := range fs {
		out = append(out, LibraryFieldOut{ID: f.ID, LibraryID: f.ListID, InternalName: f.InternalName, Title: f.Title,
			FieldType: f.Type, IsRequired: f.Required, SortOrder: f.SortOrder, Settings: f.Settings})
	}
	return out
}

// Item types of a library entry.
const (
	TypeFile   = "file"
	TypeFolder = "folder"
)

// File is one row of library_files (a file or a folder).
type File struct {
	GUID      string
	LibraryID string
	Number    int64
	ParentNo  int64 // 0 = library root
	Name      string
	IsFolder  bool
	Size      int64
	MimeType  string
	BlobKey   string
	VersionID string
	Values    map[string]json.RawMessage // field UUID -> stored value
	CreatedBy string
	UpdatedBy string
	CreatedAt time.Time
	UpdatedAt time.Time
	Inherits  bool
	shown     map[string]any // person and lookup values with displays (Service.shown)
}

func (f *File) itemType() string {
	if f.IsFolder {
		return TypeFolder
	}
	return TypeFile
}

// FileOut is the API record of a file or folder (CONTRACT.md).
type FileOut struct {
	ID                  int64          `json:"id" doc:"the file's number in its library"`
	GUID                string         `json:"guid" format:"uuid"`
	Name                string         `json:"name"`
	ItemType            string         `json:"item_type" enum:"file,folder"`
	ParentID            *int64         `json:"parentId" doc:"number of the parent folder; null at the library root"`
	FileSize            int64          `json:"file_size"`
	MimeType            string         `json:"mime_type"`
	FieldValues         map[string]any `json:"field_values"`
	InheritsPermissions bool           `json:"inherits_permissions"`
	CreatedBy           string         `json:"created_by"`
	UpdatedBy           string         `json:"updated_by"`
	CreatedAt           time.Time      `json:"created_at"`
	UpdatedAt           time.Time      `json:"updated_at"`
	HasPreview          bool           `json:"has_preview" doc:"a preview image of the current version exists (GET .../preview); made by a background job after each upload, false until then and for files that get none"`
	HasPreviewPDF       bool           `json:"has_preview_pdf" doc:"a first-page PDF of the current version exists (Office documents; GET .../preview?format=pdf)"`
}

// out renders a file with the values of the library's current fields only
// (values of deleted fields stay in the row until its next write, unseen).
func (f *File) out(fields []*field.Def) FileOut {
	o := FileOut{ID: f.Number, GUID: f.GUID, Name: f.Name, ItemType: f.itemType(), FileSize: f.Size, MimeType: f.MimeType,
		FieldValues: map[string]any{}, InheritsPermissions: f.Inherits, CreatedBy: f.CreatedBy, UpdatedBy: f.UpdatedBy,
		CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
	if f.ParentNo != 0 {
		p := f.ParentNo
		o.ParentID = &p
	}
	for _, fd := range fields {
		o.FieldValues[fd.ID] = f.value(fd)
	}
	return o
}

// value is the shown value of a field: person and lookup values with their
// displays once Service.shown ran (without them before).
func (f *File) value(fd *field.Def) any {
	if v, ok := f.shown[fd.ID]; ok && isRef(fd) {
		return v
	}
	raw, ok := f.Values[fd.ID]
	if !ok {
		return nil
	}
	return valueOf(fd, raw)
}

// FileVersion is one stored upload of a file's bytes.
type FileVersion struct {
	ID        string `json:"id" format:"uuid"`
	Number    int    `json:"versionNumber"`
	Size      int64  `json:"file_size"`
	MimeType  string `json:"mime_type"`
	CreatedBy string `json:"created_by"`
	// CreatedByName is the author's display name ("" when the user is gone).
	CreatedByName string    `json:"createdByName" doc:"display name of the author; empty when the user no longer exists"`
	CreatedAt     time.Time `json:"created_at"`
	IsCurrent     bool      `json:"isCurrent"`
	blobKey       string
}
