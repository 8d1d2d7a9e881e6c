package lists

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves lists, fields, views, items and attachments.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

func op(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.User, "lists")
	o.Description = desc
	return o
}

// Register adds the Huma operations.
func (h *Handler) Register(api huma.API) {
	web.Register(api, op(http.MethodGet, "/lists", "listLists", "Lists of a node", "View on the node; lists the caller cannot view are left out."), h.lists)
	web.Register(api, web.Answers(op(http.MethodPost, "/lists", "createList", "Create a list",
		"Edit on the node. Creates the system fields title (text, required), created_by (person, users only, single; the item's creator, kept once with the item and shown with the user's current display name, like every person value) and item_number, and the default view. Slug: lowercase letters, digits, hyphens; unique per node (409)."), http.StatusCreated), h.createList)
	web.Register(api, op(http.MethodGet, "/lists/{id}", "getList", "A list with its fields and form_config", "View on the list."), h.getList)
	web.Register(api, op(http.MethodPatch, "/lists/{id}", "updateList", "Change a list",
		"View on the list and edit on its node. formConfig replaces the whole form configuration: keys new, view, edit; each { script (≤ 65,536 characters), showStandardForm (default true), webParts[] { instanceId uuid, definitionKey, title, properties object, placement before|after (default after) } }. Built-in web parts the console renders: core.html shows properties.html, which is sanitised when stored like html_text values (so clients may render it as HTML); core.listView shows items of another list: properties { listId uuid, viewId uuid (optional; the default view otherwise), limit 1-50 (default 10) }; other definitionKeys are shown as a placeholder naming the key. A script runs in the console in a sandboxed frame (sandbox=allow-scripts, an opaque origin: it cannot call the API or read the session cookie) and talks to the form by messages through the object form: form.mode (new, view or edit), form.fields ([{ id, internalName, title, fieldType, required }]), form.get(name) and form.set(name, value) (name is a field UUID or internal_name; values as in fieldValues), form.lock(name, locked=true) (the control becomes read-only; UI only, the server does not enforce it), form.hide(name, hidden=true), form.message(text, level info|warning|error), form.onChange(fn(name, value, values)), form.onBeforeSave(fn(values)) where fn returns (or resolves to) a non-empty string to veto the save with that reason, anything else lets it go (an answer later than 3 s lets the save go). The console documents the same API in ui/FORM-SCRIPTS.md. Scripts and web parts run in every viewer's browser, so setting or changing any formConfig.*.script or formConfig.*.webParts entry (definition, title, properties, placement, order) needs the administrator role: other callers get 403 FORBIDDEN unless they send the stored scripts and web parts back unchanged (spacing and key order of properties do not count; an empty script or web-part array is the same as none); they may change showStandardForm. Changing versioningEnabled or searchEnabled is for administrators (403 otherwise; sending the stored value is not a change)."), h.updateList)
	web.Register(api, op(http.MethodDelete, "/lists/{id}", "deleteList", "Move a list to the recycle bin",
		"Delete on the node of the list. One recycle-bin entry (kind list) holds the list, its fields, views and content; items of the list already in the bin are purged. Restore through the node's recycle bin."), h.deleteList)
	web.Register(api, op(http.MethodPost, "/lists/{id}/recycle-content", "recycleListContent", "Move every item to the recycle bin",
		"Delete on the node of the list; one entry per item (kind list_item); the list stays. data.moved is the number of items moved."), h.recycleContent)

	web.Register(api, op(http.MethodGet, "/lists/{listId}/fields", "listFields", "Fields of a list", "View on the list."), h.fields)
	web.Register(api, web.Answers(op(http.MethodPost, "/lists/{listId}/fields", "createField", "Add a field",
		"Edit on the list. A lookup needs view on its target list (404 when missing, 403 when the caller cannot view it); lookup values need view on the target item (400 alike for missing and hidden items), except entries the item already holds, which may be sent back unchanged. A lookup value is stored as target item (or file) numbers; its display is the target's current text, resolved for each caller: a target the caller cannot view (no view on the target list or library, or an item or file hidden from them by broken inheritance) keeps its entry { itemId } with display \"\" (empty), in items, listings, versions, quick-edit and sync-state answers alike; live events and event-receiver payloads carry every lookup entry with display \"\" (one event goes to every viewer: read the item or sync-state for the displays). Filters contains/startsWith on a lookup match only target items the caller can view, and sorting by a lookup orders a hidden target as an empty display; eq/ne/in compare item numbers, which are not secret. A lookup to a document library (lookupLibraryId) needs view on the library (404 when missing or not visible); lookupFieldId is name (default), item_number, item_type, mime_type or the UUID of a custom field of the library; values are file or folder numbers of that library that exist and that the caller can view (400 otherwise)."), http.StatusCreated), h.createField)
	web.Register(api, op(http.MethodPatch, "/lists/{listId}/fields/{fieldId}", "updateField", "Change a field",
		"Edit on the list. settings keys given replace the stored ones. Tightening choice, person or lookup settings normalises stored values in the same transaction: values outside the allowed options or subject types are removed; with allowMultiple=false the first remaining value is kept (a lookup switched from allowMultiple true to false keeps its first target item; filters then match only that entry, and switching back brings no dropped entry back). The type and internal name cannot change, nor the target of a lookup (lookupListId or lookupLibraryId: its stored values are numbers of that target's items; 400 VALIDATION_ERROR, add a new field instead; lookupNodeId, lookupFieldId and allowMultiple may change). System fields: title allows only isRequired; created_by and item_number cannot be edited."), h.updateField)
	web.Register(api, op(http.MethodDelete, "/lists/{listId}/fields/{fieldId}", "deleteField", "Delete a field",
		"Edit on the list. System fields cannot be deleted. Stored values are dropped and views stop referring to the field."), h.deleteField)

	web.Register(api, op(http.MethodGet, "/lists/{listId}/views", "listViews", "Views of a list", "View on the list; views with hideFromSelector are listed for administrators only (the default view always)."), h.views)
	web.Register(api, web.Answers(adminOp(http.MethodPost, "/lists/{listId}/views", "createView", "Create a view",
		"config: columns[] (field UUIDs, internal names or __created_at/__updated_at; normalised to UUIDs), sort[] {column, direction}, groupBy {column} or null, filter {logic, conditions[]}, pageSize 1-500 (default 50 when absent; 0 is refused), selectionMode none|single|multiple, showActionsColumn (default true), hideFromSelector. title defaults to \"New view\". isDefault=true makes it the default view. Indexes are created for the columns the view sorts, groups and filters on."), http.StatusCreated), h.createView)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/views/{viewId}", "getView", "One view", "View on the list."), h.getView)
	web.Register(api, adminOp(http.MethodPatch, "/lists/{listId}/views/{viewId}", "updateView", "Change a view", "config merges by top-level key: the keys given replace the stored ones, null resets a key to its default, absent keys stay."), h.updateView)
	web.Register(api, adminOp(http.MethodDelete, "/lists/{listId}/views/{viewId}", "deleteView", "Delete a view", "The default view cannot be deleted (400)."), h.deleteView)
	h.registerItems(api)
	h.registerSheets(api)
	h.documentStreams(api)
}

// documentStreams adds the plain net/http routes (Mount, MountLive) to the
// OpenAPI document so that the reference lists them too.
func (h *Handler) documentStreams(api huma.API) {
	doc := func(method, path, id, summary, desc string, responses map[string]*huma.Response, body *huma.RequestBody, params ...*huma.Param) {
		o := web.Op(method, path, id, summary, web.User, "lists")
		o.Description = desc
		o.Parameters = params
		o.Responses = responses
		o.RequestBody = body
		api.OpenAPI().AddOperation(&o)
	}
	doc(http.MethodPost, "/lists/{listId}/items/{itemId}/attachments", "uploadAttachment", "Upload an attachment",
		"Add on the item. multipart/form-data with a part named file, streamed to the blob store; larger than CORE_MAX_UPLOAD_MB answers 413 PAYLOAD_TOO_LARGE. Answers 201 with { id, fileName, contentType, size, createdAt, createdBy }.",
		map[string]*huma.Response{"201": web.JSONAnswer[ItemAttachment](api, "the stored attachment")},
		web.MultipartBody("file", "the file; its part file name becomes the attachment's name", nil))
	doc(http.MethodGet, "/attachments/{id}/download", "downloadAttachment", "Download an attachment",
		"View on the attachment. The stored content type, Content-Disposition: attachment with an ASCII filename and the exact UTF-8 name in filename* (RFC 6266), X-Content-Type-Options: nosniff and a sandbox CSP. Range requests are served as for file downloads (GET /libraries/{libraryId}/files/{fileRef}/download): overlapping and adjacent ranges coalesced, more than 16 ranges or a multipart answer larger than the file answered 200 with the whole file, bytes=-0 and other unsatisfiable sets 416 with Content-Range: bytes */size; Last-Modified is the upload time. While the file store cannot be reached the answer is 503 UNAVAILABLE, given before any header or byte of the content.",
		map[string]*huma.Response{"200": web.FileAnswer("the bytes, with the content type stored at upload", "*/*")}, nil)
	doc(http.MethodGet, "/lists/{listId}/items/live", "itemsLive", "Live item changes (SSE)",
		"View on the list. Events item_updated with data { listId, item: { id, updated_at, updated_by, updated_by_user: { display_name }, field_values } } (lookup entries with display \"\": one frame serves every viewer, some of whom may not view the target) after PATCH and quick-edit saves, only for items the caller can view; a ': ping' comment every 30 s. 503 when the shared message channel is unavailable: poll sync-state instead. The core_token cookie is accepted. The caller is re-checked (account active, token neither signed out nor expired, same token generation) at least every 30 s and before each event; when that fails the stream ends after a ': the session ended; sign in again' comment and a reconnect gets 401. At most 20 open streams per user per server (CORE_LIVE_MAX_STREAMS_PER_USER) and 1000 per server (CORE_LIVE_MAX_STREAMS); beyond them 429 RATE_LIMITED. Each item_updated event carries an id. Delivery across instances: a change saved on an instance whose connection to the shared bus is down is held there (in order, up to 10,000 events) and published when the bus is back; where that is not possible (the hold overflowed, this instance's own subscription was cut and may have missed changes of other instances, or the stream fell too far behind a burst of events) every open stream of the list receives an event resync with data { listId }: reload the items shown (sync-state) and keep listening. A client that reconnects may send Last-Event-ID (the id of the last event it got): the events of its items after it, from the last 5 minutes (at most 2,000 per list) kept by this instance, are sent first; when that id is not in the window, a resync is sent instead.",
		map[string]*huma.Response{"200": web.StreamAnswer("the event stream")}, nil, &huma.Param{Name: "ids", In: "query", Required: true,
			Description: "the items to watch: 1 to 100 item numbers separated by commas (400 otherwise)",
			Schema:      &huma.Schema{Type: huma.TypeString}})
}

func adminOp(method, path, id, summary, desc string) huma.Operation {
	o := web.Op(method, path, id, summary, web.Admin, "lists")
	o.Description = "Administrators only. " + desc
	return o
}

func raw(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	j, _ := json.Marshal(v)
	return j
}

type nodeQuery struct {
	NodeID string `query:"nodeId" required:"true" doc:"node id"`
}

func (h *Handler) lists(ctx context.Context, in *nodeQuery) (*web.Out[[]ListOut], error) {
	return web.Reply(h.svc.Lists(ctx, auth.FromContext(ctx), in.NodeID))
}

type createListIn struct {
	Body struct {
		NodeID      string `json:"nodeId"`
		Title       string `json:"title"`
		Slug        string `json:"slug"`
		Description string `json:"description,omitempty"`
	}
}

func (h *Handler) createList(ctx context.Context, in *createListIn) (*web.Out[ListOut], error) {
	b := in.Body
	return web.ReplyCreated(h.svc.Create(ctx, auth.FromContext(ctx), NewList{NodeID: b.NodeID, Title: b.Title, Slug: b.Slug, Description: b.Description}))
}

type ListIDParams struct {
	ID string `path:"id" doc:"list id"`
}

func (h *Handler) getList(ctx context.Context, in *ListIDParams) (*web.Out[ListOut], error) {
	return web.Reply(h.svc.Get(ctx, auth.FromContext(ctx), in.ID))
}

type updateListIn struct {
	ListIDParams
	Body struct {
		web.ReadOnlyFrom[ListOut]
		Title             *string        `json:"title,omitempty"`
		Slug              *string        `json:"slug,omitempty"`
		Description       *string        `json:"description,omitempty"`
		FormConfig        map[string]any `json:"formConfig,omitempty"`
		VersioningEnabled *bool          `json:"versioningEnabled,omitempty"`
		SearchEnabled     *bool          `json:"searchEnabled,omitempty"`
	}
}

func (h *Handler) updateList(ctx context.Context, in *updateListIn) (*web.Out[ListOut], error) {
	b := in.Body
	var fc json.RawMessage
	if b.FormConfig != nil {
		fc = raw(b.FormConfig)
	}
	out, err := h.svc.Update(ctx, auth.FromContext(ctx), in.ID, ListPatch{Title: b.Title, Slug: b.Slug, Description: b.Description,
		FormConfig: fc, VersioningEnabled: b.VersioningEnabled, SearchEnabled: b.SearchEnabled})
	if err != nil {
		return nil, err
	}
	return web.OK(out), nil
}

func (h *Handler) deleteList(ctx context.Context, in *ListIDParams) (*web.Out[any], error) {
	if err := h.svc.DeleteList(ctx, auth.FromContext(ctx), in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

type listMoved struct {
	Moved int `json:"moved"`
}

func (h *Handler) recycleContent(ctx context.Context, in *ListIDParams) (*web.Out[listMoved], error) {
	n, err := h.svc.RecycleContent(ctx, auth.FromContext(ctx), in.ID)
	if err != nil {
		return nil, err
	}
	return web.OK(listMoved{Moved: n}), nil
}

type ListPathParams struct {
	ListID string `path:"listId" doc:"list id"`
}

func (h *Handler) fields(ctx context.Context, in *ListPathParams) (*web.Out[[]FieldOut], error) {
	return web.Reply(h.svc.Fields(ctx, auth.FromContext(ctx), in.ListID))
}

type listFieldBody struct {
	InternalName *string        `json:"internalName,omitempty" doc:"lowercase letters, digits and _; optional on create (default field_<n>, a form reserved for generated names)"`
	Title        *string        `json:"title,omitempty"`
	FieldType    *string        `json:"fieldType,omitempty" doc:"text, multiline_text, html_text (values sanitised as page content: scripts, event-handler attributes, style, id and name attributes removed), choice, number, date, datetime, boolean, lookup, person or link; settings by type: choice {choices[], allowMultiple=false}, lookup {lookupListId XOR lookupLibraryId, lookupNodeId?, lookupFieldId?, allowMultiple=false}, person {allowUsers, allowGroups, allowMultiple; all default true}"`
	IsRequired   *bool          `json:"isRequired,omitempty"`
	SortOrder    *int           `json:"sortOrder,omitempty" doc:"-1000000 to 1000000"`
	Settings     map[string]any `json:"settings,omitempty" doc:"the settings of the fieldType (see fieldType)"`
}

func (b listFieldBody) input() FieldInput {
	fi := FieldInput{InternalName: b.InternalName, Title: b.Title, FieldType: b.FieldType, IsRequired: b.IsRequired, SortOrder: b.SortOrder}
	if b.Settings != nil {
		fi.Settings = raw(b.Settings)
	}
	return fi
}

type createFieldIn struct {
	ListPathParams
	Body listFieldBody
}

func (h *Handler) createField(ctx context.Context, in *createFieldIn) (*web.Out[FieldOut], error) {
	return web.ReplyCreated(h.svc.CreateField(ctx, auth.FromContext(ctx), in.ListID, in.Body.input()))
}

type FieldPathParams struct {
	ListPathParams
	FieldID string `path:"fieldId" doc:"field id"`
}

// listFieldPatch is the body of PATCH /lists/{listId}/fields/{fieldId}; the
// read-only properties of the field's record (GET /lists/{id}/fields) are
// accepted and ignored.
type listFieldPatch struct {
	web.ReadOnlyFrom[FieldOut]
	InternalName *string        `json:"internalName,omitempty"`
	Title        *string        `json:"title,omitempty"`
	FieldType    *string        `json:"fieldType,omitempty"`
	IsRequired   *bool          `json:"isRequired,omitempty"`
	SortOrder    *int           `json:"sortOrder,omitempty"`
	Settings     map[string]any `json:"settings,omitempty"`
}

type updateFieldIn struct {
	FieldPathParams
	Body listFieldPatch
}

func (h *Handler) updateField(ctx context.Context, in *updateFieldIn) (*web.Out[FieldOut], error) {
	return web.Reply(h.svc.UpdateField(ctx, auth.FromContext(ctx), in.ListID, in.FieldID, listFieldBody{InternalName: in.Body.InternalName, Title: in.Body.Title, FieldType: in.Body.FieldType, IsRequired: in.Body.IsRequired, SortOrder: in.Body.SortOrder, Settings: in.Body.Settings}.input()))
}

func (h *Handler) deleteField(ctx context.Context, in *FieldPathParams) (*web.Out[any], error) {
	if err := h.svc.DeleteField(ctx, auth.FromContext(ctx), in.ListID, in.FieldID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}

func (h *Handler) views(ctx context.Context, in *ListPathParams) (*web.Out[[]ListView], error) {
	return web.Reply(h.svc.Views(ctx, auth.FromContext(ctx), in.ListID))
}

type listViewBody struct {
	Title     *string        `json:"title,omitempty"`
	IsDefault *bool          `json:"isDefault,omitempty"`
	Config    map[string]any `json:"config,omitempty"`
}

func (b listViewBody) input() ViewInput {
	vi := ViewInput{Title: b.Title, IsDefault: b.IsDefault}
	if b.Config != nil {
		vi.Config = raw(b.Config)
	}
	return vi
}

type createViewIn struct {
	ListPathParams
	Body listViewBody
}

func (h *Handler) createView(ctx context.Context, in *createViewIn) (*web.Out[ListView], error) {
	return web.ReplyCreated(h.svc.CreateView(ctx, auth.FromContext(ctx), in.ListID, in.Body.input()))
}

type ViewPathParams struct {
	ListPathParams
	ViewID string `path:"viewId" doc:"view id"`
}

func (h *Handler) getView(ctx context.Context, in *ViewPathParams) (*web.Out[ListView], error) {
	return web.Reply(h.svc.View(ctx, auth.FromContext(ctx), in.ListID, in.ViewID))
}

// listViewPatch is the body of PATCH /lists/{listId}/views/{viewId}; the
// read-only properties of the view's GET are accepted and ignored.
type listViewPatch struct {
	web.ReadOnlyFrom[ListView]
	Title     *string        `json:"title,omitempty"`
	IsDefault *bool          `json:"isDefault,omitempty"`
	Config    map[string]any `json:"config,omitempty"`
}

type updateViewIn struct {
	ViewPathParams
	Body listViewPatch
}

func (h *Handler) updateView(ctx context.Context, in *updateViewIn) (*web.Out[ListView], error) {
	return web.Reply(h.svc.UpdateView(ctx, auth.FromContext(ctx), in.ListID, in.ViewID, listViewBody{Title: in.Body.Title, IsDefault: in.Body.IsDefault, Config: in.Body.Config}.input()))
}

func (h *Handler) deleteView(ctx context.Context, in *ViewPathParams) (*web.Out[any], error) {
	if err := h.svc.DeleteView(ctx, auth.FromContext(ctx), in.ListID, in.ViewID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
