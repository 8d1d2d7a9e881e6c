package libraries

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves libraries, their fields, files, folders and versions.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func op(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.User, "libraries")
	o.Description = desc
	return o
}

const refDoc = " fileRef is the file's number in the library or its guid; a malformed library id, fileRef, versionId or parentId answers 400. A missing library or file answers 404; one that exists but the caller lacks the right on answers 403."

// Register adds the Huma operations.
func (h *Handler) Register(api huma.API) {
	h.registerExport(api)
	web.Register(api, op(http.MethodGet, "/libraries", "listLibraries", "Libraries of a node", "View on the node; libraries the caller cannot view are left out."), h.libraries)
	web.Register(api, web.Answers(op(http.MethodPost, "/libraries", "createLibrary", "Create a library",
		"Edit on the node. Slug: lowercase letters, digits, hyphens; unique per node among libraries (409)."), http.StatusCreated), h.create)
	web.Register(api, op(http.MethodGet, "/libraries/{id}", "getLibrary", "A library with its fields", "View on the library (403 without it, 404 when missing)."), h.get)
	web.Register(api, op(http.MethodPatch, "/libraries/{id}", "updateLibrary", "Change a library",
		"title, slug, description. View on the library and edit on its node, as for lists."), h.update)
	web.Register(api, op(http.MethodDelete, "/libraries/{id}", "deleteLibrary", "Move a library to the recycle bin",
		"Delete on the node of the library, and delete on every isolated file or folder in it (an isolated entry is a boundary: 403 otherwise, nothing changes; administrators have every right). One recycle-bin entry (kind library) takes the library with its folders, files, versions, field values and field schema; files of the library already in the bin are purged. Restore through the node's recycle bin (409 when the slug was taken meanwhile); purge deletes every blob."), h.delete)

	web.Register(api, op(http.MethodGet, "/libraries/{id}/fields", "listLibraryFields", "Custom fields of a library", "View on the library."), h.fields)
	web.Register(api, web.Answers(op(http.MethodPost, "/libraries/{id}/fields", "createLibraryField", "Add a custom field",
		"Administrators with edit on the library. The list field types and settings (see createField). internalName optional (default field_<n>). A lookup field of a library points to a document library (lookupLibraryId, view on it needed; lookupFieldId name, item_number, item_type, mime_type or a custom field); lookupListId is refused (400)."), http.StatusCreated), h.createField)
	web.Register(api, op(http.MethodPatch, "/libraries/{id}/fields/{fieldId}", "updateLibraryField", "Change a custom field",
		"Administrators with edit on the library. settings keys given replace the stored ones; tightening choice, person or lookup settings (a lookup from allowMultiple true to false keeps the first entry) normalises stored file values in the same transaction. Type and internal name cannot change, nor the target of a lookup (lookupListId or lookupLibraryId; 400 VALIDATION_ERROR)."), h.updateField)
	web.Register(api, op(http.MethodDelete, "/libraries/{id}/fields/{fieldId}", "deleteLibraryField", "Delete a custom field",
		"Administrators with edit on the library. The field's values disappear from every file record."), h.deleteField)

	web.Register(api, op(http.MethodGet, "/libraries/{libraryId}/files", "listFiles", "Children of a folder",
		"View on the folder (the library at the root, when parentId is absent). Folders first, then by sort: name (default, case-insensitive), size or modified; prefix - for descending. Entries the caller cannot view are left out. meta has page, limit, total, totalPages; a total that no per-caller exception narrows is kept up to 5 s per instance and dropped at once by writes on this instance."), h.files)
	web.Register(api, web.Answers(op(http.MethodPost, "/libraries/{libraryId}/folders", "createFolder", "Create a folder",
		"Add on the library or the parent folder. { name, parentId? } (parentId: folder number or guid; absent = root). Names: 1-255 characters, no / \\, control characters (C0, DEL, C1) or bidirectional override/isolate marks (U+202A-U+202E, U+2066-U+2069), not . or ..; unique per folder, case-insensitive (409, also when the entry holding the name is hidden from the caller: a known property, the name is reported taken and nothing else about the hidden entry). Required custom fields are not checked."), http.StatusCreated), h.createFolder)
	web.Register(api, op(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}", "getFile", "A file or folder record", "View on the file."+refDoc), h.file)
	web.Register(api, op(http.MethodPatch, "/libraries/{libraryId}/files/{fileRef}", "updateFile", "Rename, move or change field values",
		"Edit on the file; moving also needs add on the destination folder (parentId: folder number or guid, 0 or empty = root) and, for a folder, edit on every isolated file or folder below it, since they move with it (403 otherwise). fieldValues (keys: field UUID or internal_name) merge with the stored values and then every required field is checked; name or parentId alone check nothing. Moving a folder into itself or below itself, or onto a taken name (case-insensitive), answers 409."+refDoc), h.updateFile)
	web.Register(api, op(http.MethodDelete, "/libraries/{libraryId}/files/{fileRef}", "deleteFile", "Move a file or folder to the recycle bin",
		"Delete on the file or folder. A folder goes with everything below it, as one entry (kind file); delete is needed on every isolated file or folder below it as well (an isolated entry is a boundary: 403 otherwise, nothing moves; administrators have every right). Restore puts it back in its folder (the root when that folder is gone; 409 when the name is taken there); purge deletes the blobs of every version. data.recycleBinEntryId names the bin entry, for an exact undo (restore)."+refDoc), h.deleteFile)
	web.Register(api, op(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}/versions", "listFileVersions", "Versions of a file",
		"View on the file. Newest first: id, versionNumber, file_size, mime_type, created_by, created_at, isCurrent. Versions hold the bytes only; every upload of an existing name and every restore adds one."+refDoc), h.versions)
	web.Register(api, op(http.MethodPost, "/libraries/{libraryId}/files/{fileRef}/versions/{versionId}/restore", "restoreFileVersion", "Restore a version",
		"Edit on the file. The version's bytes become a new current version; field values are not rolled back. Answers the file record."+refDoc), h.restoreVersion)
	web.Register(api, op(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}/permission-settings", "getFilePermissionSettings", "Inheritance of a file or folder",
		"Administrators (view on the file). { inheritsPermissions, parentLabel }."+refDoc), h.permissionSettings)
	web.Register(api, op(http.MethodPatch, "/libraries/{libraryId}/files/{fileRef}/permission-settings", "setFilePermissionSettings", "Break or restore inheritance",
		"Administrators. { inheritFromParent: false } copies the parent's effective rights as explicit records and isolates the file or folder: rights of folders, the library and nodes above no longer apply to it or anything below it. { inheritFromParent: true } drops its explicit records."+refDoc), h.setPermissionSettings)
	h.documentStreams(api)
	h.documentPreview(api)
}

type libraryNodeQuery struct {
	NodeID string `query:"nodeId" required:"true" doc:"node id"`
}

func (h *Handler) libraries(ctx context.Context, in *libraryNodeQuery) (*web.Out[[]LibraryOut], error) {
	return web.Reply(h.svc.Libraries(ctx, auth.FromContext(ctx), in.NodeID))
}

type libraryCreateIn struct {
	Body struct {
		NodeID      string `json:"nodeId"`
		Title       string `json:"title"`
		Slug        string `json:"slug"`
		Description string `json:"description,omitempty"`
	}
}

func (h *Handler) create(ctx context.Context, in *libraryCreateIn) (*web.Out[LibraryOut], error) {
	b := in.Body
	return web.ReplyCreated(h.svc.Create(ctx, auth.FromContext(ctx), NewLibrary{NodeID: b.NodeID, Title: b.Title, Slug: b.Slug, Description: b.Description}))
}

// LibraryIDParams is the path of library operations.
type LibraryIDParams struct {
	ID string `path:"id" doc:"library id"`
}

func (h *Handler) get(ctx context.Context, in *LibraryIDParams) (*web.Out[LibraryOut], error) {
	return web.Reply(h.svc.Get(ctx, auth.FromContext(ctx), in.ID))
}

type libraryUpdateIn struct {
	LibraryIDParams
	Body struct {
		web.ReadOnlyFrom[LibraryOut]
		Title       *string `json:"title,omitempty"`
		Slug        *string `json:"slug,omitempty"`
		Description *string `json:"description,omitempty"`
	}
}

func (h *Handler) update(ctx context.Context, in *libraryUpdateIn) (*web.Out[LibraryOut], error) {
	b := in.Body
	return web.Reply(h.svc.Update(ctx, auth.FromContext(ctx), in.ID, LibraryPatch{Title: b.Title, Slug: b.Slug, Description: b.Description}))
}

func (h *Handler) delete(ctx context.Context, in *LibraryIDParams) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, auth.FromContext(ctx), in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

func (h *Handler) fields(ctx context.Context, in *LibraryIDParams) (*web.Out[[]LibraryFieldOut], error) {
	return web.Reply(h.svc.Fields(ctx, auth.FromContext(ctx), in.ID))
}

type libraryFieldBody struct {
	InternalName *string        `json:"internalName,omitempty"`
	Title        *string        `json:"title,omitempty"`
	FieldType    *string        `json:"fieldType,omitempty"`
	IsRequired   *bool          `json:"isRequired,omitempty"`
	SortOrder    *int           `json:"sortOrder,omitempty"`
	Settings     map[string]any `json:"settings,omitempty"`
}

func (b libraryFieldBody) input() FieldInput {
	in := FieldInput{InternalName: b.InternalName, Title: b.Title, FieldType: b.FieldType, IsRequired: b.IsRequired, SortOrder: b.SortOrder}
	if b.Settings != nil {
		in.Settings, _ = json.Marshal(b.Settings)
	}
	return in
}

type libraryCreateFieldIn struct {
	LibraryIDParams
	Body libraryFieldBody
}

func (h *Handler) createField(ctx context.Context, in *libraryCreateFieldIn) (*web.Out[LibraryFieldOut], error) {
	return web.ReplyCreated(h.svc.CreateField(ctx, auth.FromContext(ctx), in.ID, in.Body.input()))
}

// LibraryFieldParams names one field.
type LibraryFieldParams struct {
	LibraryIDParams
	FieldID string `path:"fieldId" doc:"field id"`
}

// libraryFieldPatch is the body of PATCH /libraries/{id}/fields/{fieldId};
// the read-only properties of the field's record (GET /libraries/{id}/fields)
// are accepted and ignored.
type libraryFieldPatch struct {
	web.ReadOnlyFrom[LibraryFieldOut]
	InternalName *string        `json:"internalName,omitempty"`
	Title        *string        `json:"title,omitempty"`
	FieldType    *string        `json:"fieldType,omitempty"`
	IsRequired   *bool          `json:"isRequired,omitempty"`
	SortOrder    *int           `json:"sortOrder,omitempty"`
	Settings     map[string]any `json:"settings,omitempty"`
}

type libraryUpdateFieldIn struct {
	LibraryFieldParams
	Body libraryFieldPatch
}

func (h *Handler) updateField(ctx context.Context, in *libraryUpdateFieldIn) (*web.Out[LibraryFieldOut], error) {
	return web.Reply(h.svc.UpdateField(ctx, auth.FromContext(ctx), in.ID, in.FieldID, libraryFieldBody{InternalName: in.Body.InternalName, Title: in.Body.Title, FieldType: in.Body.FieldType, IsRequired: in.Body.IsRequired, SortOrder: in.Body.SortOrder, Settings: in.Body.Settings}.input()))
}

func (h *Handler) deleteField(ctx context.Context, in *LibraryFieldParams) (*web.Out[any], error) {
	if err := h.svc.DeleteField(ctx, auth.FromContext(ctx), in.ID, in.FieldID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

// LibraryParams is the path of file operations.
type LibraryParams struct {
	LibraryID string `path:"libraryId" doc:"library id"`
}

type libraryFilesIn struct {
	LibraryParams
	web.PageQuery
	ParentID string `query:"parentId" doc:"folder number or guid; absent = library root"`
	Sort     string `query:"sort" doc:"name (default), size or modified; prefix - for descending"`
}

func (h *Handler) files(ctx context.Context, in *libraryFilesIn) (*web.PagedOut[[]FileOut, web.PageMeta], error) {
	files, meta, err := h.svc.Files(ctx, auth.FromContext(ctx), in.LibraryID, ListQuery{ParentID: in.ParentID, Sort: in.Sort, Page: in.PageQuery})
	if err != nil {
		return nil, err
	}
	return web.Paged(files, meta), nil
}

type libraryCreateFolderIn struct {
	LibraryParams
	Body struct {
		Name     string `json:"name"`
		ParentID any    `json:"parentId,omitempty" doc:"folder number or guid; absent, null or 0 = root"`
	}
}

func (h *Handler) createFolder(ctx context.Context, in *libraryCreateFolderIn) (*web.Out[FileOut], error) {
	return web.ReplyCreated(h.svc.CreateFolder(ctx, auth.FromContext(ctx), in.LibraryID, NewFolder{Name: in.Body.Name, ParentID: parentString(in.Body.ParentID)}))
}

// LibraryFileParams names one file.
type LibraryFileParams struct {
	LibraryParams
	FileRef string `path:"fileRef" doc:"file number or guid"`
}

func (h *Handler) file(ctx context.Context, in *LibraryFileParams) (*web.Out[FileOut], error) {
	return web.Reply(h.svc.File(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef))
}

type libraryUpdateFileIn struct {
	LibraryFileParams
	Body struct {
		web.ReadOnlyFrom[FileOut]
		Name        *string                    `json:"name,omitempty"`
		ParentID    OptParent                  `json:"parentId,omitempty"`
		FieldValues map[string]json.RawMessage `json:"fieldValues,omitempty"`
	}
}

func (h *Handler) updateFile(ctx context.Context, in *libraryUpdateFileIn) (*web.Out[FileOut], error) {
	b := in.Body
	patch := FilePatch{Name: b.Name, FieldValues: b.FieldValues}
	if b.ParentID.Sent {
		s := parentString(b.ParentID.Value)
		patch.ParentID = &s
	}
	return web.Reply(h.svc.UpdateFile(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef, patch))
}

func (h *Handler) deleteFile(ctx context.Context, in *LibraryFileParams) (*web.Out[DeletedFile], error) {
	return web.Reply(h.svc.DeleteFile(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef))
}

func (h *Handler) versions(ctx context.Context, in *LibraryFileParams) (*web.Out[[]FileVersion], error) {
	return web.Reply(h.svc.Versions(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef))
}

// LibraryVersionParams names one version.
type LibraryVersionParams struct {
	LibraryFileParams
	VersionID string `path:"versionId" doc:"version id"`
}

func (h *Handler) restoreVersion(ctx context.Context, in *LibraryVersionParams) (*web.Out[FileOut], error) {
	return web.Reply(h.svc.RestoreVersion(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef, in.VersionID))
}

func (h *Handler) permissionSettings(ctx context.Context, in *LibraryFileParams) (*web.Out[FilePermissionSettings], error) {
	return web.Reply(h.svc.PermissionSettings(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef))
}

type libraryFilePermissionIn struct {
	LibraryFileParams
	Body struct {
		web.ReadOnlyFrom[FilePermissionSettings]
		InheritFromParent bool `json:"inheritFromParent" required:"true"`
	}
}

func (h *Handler) setPermissionSettings(ctx context.Context, in *libraryFilePermissionIn) (*web.Out[FilePermissionSettings], error) {
	return web.Reply(h.svc.SetInheritance(ctx, auth.FromContext(ctx), in.LibraryID, in.FileRef, in.Body.InheritFromParent))
}
