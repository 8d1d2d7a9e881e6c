package lists

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

func (h *Handler) registerItems(api huma.API) {
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items", "listItems", "Paged, filtered, sorted items", listItemsDesc), h.listItems)
	web.Register(api, web.Answers(op(http.MethodPost, "/lists/{listId}/items", "createItem", "Create an item",
		"Add on the list. fieldValues keys are field UUIDs or internal names (stored as UUIDs). Every required field must be set. Values of created_by and item_number are ignored. Validation errors name the field in details.field and list every failed cell in details.errors."), http.StatusCreated), h.createItem)
	web.Register(api, op(http.MethodPost, "/lists/{listId}/items/quick-edit", "quickEditItems", "Save several rows",
		"View on the list; each update needs edit on its item, each create add on the list. Rows are independent: successful rows are saved, errors are reported per cell (fieldId) or per row (no fieldId), nothing is rolled back. At most 500 rows. A request may run as long as its rows need. A row that could not be saved because the client went away reports the message \"cancelled: …\" (later rows are not tried), one refused because the database is unreachable \"the database is unavailable; …\"."), h.quickEdit)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items/sync-state", "itemsSyncState", "Current state of items for polling",
		"ids: item numbers separated by commas (at most 100). Items that do not exist or that the caller cannot view are left out."), h.syncState)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items/{itemId}", "getItem", "One item by number or guid", "View on the item."), h.getItem)
	web.Register(api, op(http.MethodPatch, "/lists/{listId}/items/{itemId}", "updateItem", "Merge values into an item",
		"Edit on the item. Only the passed keys change; the merged set is then validated (required fields). Last write wins. A save that changes no value (the same values, or an empty fieldValues) writes nothing: no version, no event, updated_at and updated_by stay; quick-edit rows alike."), h.updateItem)
	web.Register(api, op(http.MethodDelete, "/lists/{listId}/items/{itemId}", "deleteItem", "Move an item to the recycle bin", "Delete on the item. data.recycleBinEntryId names the bin entry that holds the item, for an exact undo (restore)."), h.deleteItem)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items/{itemId}/versions", "itemVersions", "ItemVersion history",
		"View on the item. versions newest first; empty while versioning is off (the history is kept and shows again when it is switched back on). An item created before versioning was switched on starts its history at its first update (versionNumber 1, changeType updated)."), h.versions)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items/{itemId}/permission-settings", "getItemPermissionSettings", "Item inheritance flag", "View on the item."), h.permSettings)
	web.Register(api, adminOp(http.MethodPatch, "/lists/{listId}/items/{itemId}/permission-settings", "setItemPermissionSettings", "Break or restore inheritance",
		"inheritFromParent=false copies the effective rights of the list as explicit records; true deletes the item's explicit records."), h.setPermSettings)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/person-options", "personOptions", "Subjects for a person field",
		"View on the list. Users matched by display name, login or email; groups by name or description; at most 15; the field's allowUsers/allowGroups are honoured."), h.personOptions)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/lookup-options", "lookupOptions", "Items for a lookup field",
		"View on the list; exactly one of targetListId and targetLibraryId. A target the caller cannot view answers 200 with accessDenied=true and no options. Display is lookupFieldId's value (title by default; for a library: name by default, or item_number, item_type, mime_type or a custom field); at most 50 options. Library options are files and folders the caller can view, by name, whose display contains q."), h.lookupOptions)
	web.Register(api, op(http.MethodGet, "/lists/{listId}/items/{itemId}/attachments", "listAttachments", "Attachments of an item", "View on the item."), h.attachments)
	web.Register(api, op(http.MethodDelete, "/lists/{listId}/items/{itemId}/attachments/{id}", "deleteAttachment", "Delete an attachment", "Delete on the attachment."), h.deleteAttachment)
}

// listItemsDesc describes GET /lists/{listId}/items; its parameters and
// meta describe themselves.
const listItemsDesc = "View on the list; items the caller cannot view are never listed or counted. " +
	"The view (viewId, or the list's default view) gives the columns, the sort, the filter and the page size; sort, orderBy and filter refine it. " +
	"Text comparisons and text sorts are case-insensitive (Unicode lower-casing, identical on SQLite and PostgreSQL: Д matches д, ё does not match е; " +
	"the lower-cased values compare and sort by code point; on PostgreSQL the database needs a UTF-8 character type such as C.UTF-8); numbers compare as numbers, dates as dates. " +
	"Person and lookup values are stored as references: display and sorting use the current names (a user's rename shows at once on every instance, a group's at once on the instance " +
	"that made it and within 30 s on the others, a lookup target's change at once); a subject or target item that no longer exists keeps its entry with an empty display; " +
	"a target the caller cannot view matches no text, sorts as an empty display and is shown with display \"\". " +
	"Indexes need no planning: views index the columns they sort, group and filter on; once a list has 1,000 items, the first sort column of a listing and the columns compared by " +
	"eq, in, gt, gte, lt, lte or startsWith get an index built in the background on first use (text contains of 3 or more characters: a pg_trgm index on PostgreSQL when the " +
	"extension can be installed), at most 16 per list, dropped when unused for 30 days. " +
	"Answers travel compressed (zstd or gzip, JSON above 1 KB) and carry a weak ETag (If-None-Match answers 304)."

type listItemsIn struct {
	ListPathParams
	Page    int    `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"page number, from 1"`
	Limit   int    `query:"limit" doc:"page size, 1-500; absent or outside 1-500: the view's pageSize"`
	ViewID  string `query:"viewId" doc:"the view (uuid) whose columns, sort, filter and page size apply; absent: the list's default view. Malformed: 400; unknown: 404"`
	Sort    string `query:"sort" doc:"sort keys: JSON [{\"column\": …, \"direction\": \"asc\"|\"desc\"}] or col:asc,col2:desc; replaces the view's sort. A column is a field uuid, an internal_name, __created_at, __updated_at or id (the item number; a field whose internal_name is id takes precedence). Empty values sort last; a person or lookup column sorts by the display of its first entry"`
	OrderBy string `query:"orderBy" doc:"the same as sort; wins when both are given"`
	Filter  string `query:"filter" doc:"JSON {\"logic\": \"and\"|\"or\", \"conditions\": [{\"column\", \"operator\" (or \"op\"), \"value\"}]}, ANDed with the view's filter. column as in sort. Operators: eq, ne, contains, startsWith, gt, gte, lt, lte, isEmpty, isNotEmpty, in (value an array or comma-separated). On a datetime field a date value means that whole day (UTC). Choice, person and lookup fields: eq, ne and in match an entry (a person by subject id or [Я], a lookup by item number), contains and startsWith match the current names. Placeholders: [Я] (the caller), [Сегодня], [Сегодня]+N, [Сегодня]-N (UTC days)"`
	Q       string `query:"q" doc:"at most 200 characters: case-insensitive text search over every field except lookups; person fields match by the names of their users and groups"`
	// SchemaTag is meta.schemaTag of an earlier answer: when it still names
	// the list's fields and view, they are not sent again.
	SchemaTag string `query:"schemaTag" maxLength:"64" doc:"meta.schemaTag of an earlier listing of the same list and view: while fields and view are unchanged the answer leaves meta.fields and meta.view out and says meta.schemaUnchanged true. An unknown or stale tag is not an error"`
}

func (h *Handler) listItems(ctx context.Context, in *listItemsIn) (*web.PagedOut[[]ItemOut, SentListMeta], error) {
	items, meta, err := h.svc.ListItems(ctx, auth.FromContext(ctx), in.ListID, ListParams{Page: in.Page, Limit: in.Limit, ViewID: in.ViewID,
		Sort: in.Sort, OrderBy: in.OrderBy, Filter: in.Filter, Q: in.Q})
	if err != nil {
		return nil, err
	}
	return web.Paged(items, SentMeta(meta, in.SchemaTag)), nil
}

func values(m map[string]any) Values {
	out := Values{}
	for k, v := range m {
		out[k] = raw(v)
		if v == nil {
			out[k] = json.RawMessage("null")
		}
	}
	return out
}

type listItemBody struct {
	FieldValues map[string]any `json:"fieldValues"`
}

type createItemIn struct {
	ListPathParams
	Body listItemBody
}

func (h *Handler) createItem(ctx context.Context, in *createItemIn) (*web.Out[ItemOut], error) {
	return web.ReplyCreated(h.svc.CreateItem(ctx, auth.FromContext(ctx), in.ListID, values(in.Body.FieldValues)))
}

type ItemPathParams struct {
	ListPathParams
	ItemID string `path:"itemId" doc:"item number or guid"`
}

func (h *Handler) getItem(ctx context.Context, in *ItemPathParams) (*web.Out[ItemOut], error) {
	return web.Reply(h.svc.GetItem(ctx, auth.FromContext(ctx), in.ListID, in.ItemID))
}

// listItemPatch is the body of PATCH /lists/{listId}/items/{itemId}; the
// read-only properties of the item's GET (field_values, created_at, ...) are
// accepted and ignored: values change only through fieldValues.
type listItemPatch struct {
	web.ReadOnlyFrom[ItemOut]
	FieldValues map[string]any `json:"fieldValues"`
}

type updateItemIn struct {
	ItemPathParams
	Body listItemPatch
}

func (h *Handler) updateItem(ctx context.Context, in *updateItemIn) (*web.Out[ItemOut], error) {
	return web.Reply(h.svc.UpdateItem(ctx, auth.FromContext(ctx), in.ListID, in.ItemID, values(in.Body.FieldValues)))
}

func (h *Handler) deleteItem(ctx context.Context, in *ItemPathParams) (*web.Out[DeletedItem], error) {
	return web.Reply(h.svc.DeleteItem(ctx, auth.FromContext(ctx), in.ListID, in.ItemID))
}

// QuickEditUpdateRow is one changed row of a quick edit.
type QuickEditUpdateRow struct {
	ID          int64          `json:"id"`
	FieldValues map[string]any `json:"fieldValues"`
}

// QuickEditCreateRow is one new row of a quick edit.
type QuickEditCreateRow struct {
	ClientRowID string         `json:"clientRowId"`
	FieldValues map[string]any `json:"fieldValues"`
}

type quickEditIn struct {
	ListPathParams
	Body struct {
		Updates []QuickEditUpdateRow `json:"updates,omitempty"`
		Creates []QuickEditCreateRow `json:"creates,omitempty"`
	}
}

func (h *Handler) quickEdit(ctx context.Context, in *quickEditIn) (*web.Out[QuickResult], error) {
	var ups []QuickUpdate
	for _, u := range in.Body.Updates {
		ups = append(ups, QuickUpdate{ID: u.ID, FieldValues: values(u.FieldValues)})
	}
	var crs []QuickCreate
	for _, c := range in.Body.Creates {
		crs = append(crs, QuickCreate{ClientRowID: c.ClientRowID, FieldValues: values(c.FieldValues)})
	}
	return web.Reply(h.svc.QuickEdit(ctx, auth.FromContext(ctx), in.ListID, ups, crs))
}

// ParseIDs reads "1,2,3" (at most max numbers).
func ParseIDs(s string, max int) ([]int64, error) {
	var out []int64
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n <= 0 {
			return nil, fault.Validation("ids", "ids must be item numbers separated by commas")
		}
		out = append(out, n)
	}
	if len(out) > max {
		return nil, fault.Validation("ids", "at most %d ids", max)
	}
	return out, nil
}

type syncIn struct {
	ListPathParams
	IDs string `query:"ids"`
}

type itemsSyncOut struct {
	Items []SyncItem `json:"items"`
}

func (h *Handler) syncState(ctx context.Context, in *syncIn) (*web.Out[itemsSyncOut], error) {
	ids, err := ParseIDs(in.IDs, 100)
	if err != nil {
		return nil, err
	}
	items, err := h.svc.SyncState(ctx, auth.FromContext(ctx), in.ListID, ids)
	if err != nil {
		return nil, err
	}
	return web.OK(itemsSyncOut{Items: items}), nil
}

func (h *Handler) versions(ctx context.Context, in *ItemPathParams) (*web.Out[VersionHistory], error) {
	return web.Reply(h.svc.ItemVersions(ctx, auth.FromContext(ctx), in.ListID, in.ItemID))
}

func (h *Handler) permSettings(ctx context.Context, in *ItemPathParams) (*web.Out[ItemInheritance], error) {
	return web.Reply(h.svc.ItemPermissionSettings(ctx, auth.FromContext(ctx), in.ListID, in.ItemID))
}

type setItemPermIn struct {
	ItemPathParams
	Body struct {
		web.ReadOnlyFrom[ItemInheritance]
		InheritFromParent bool `json:"inheritFromParent"`
	}
}

func (h *Handler) setPermSettings(ctx context.Context, in *setItemPermIn) (*web.Out[ItemInheritance], error) {
	return web.Reply(h.svc.SetItemInheritance(ctx, auth.FromContext(ctx), in.ListID, in.ItemID, in.Body.InheritFromParent))
}

type personIn struct {
	ListPathParams
	FieldID    string `query:"fieldId"`
	Q          string `query:"q" maxLength:"200"`
	ExcludeIDs string `query:"excludeIds"`
}

func (h *Handler) personOptions(ctx context.Context, in *personIn) (*web.Out[[]ListPersonOption], error) {
	var ex []string
	if in.ExcludeIDs != "" {
		ex = strings.Split(in.ExcludeIDs, ",")
	}
	return web.Reply(h.svc.PersonOptions(ctx, auth.FromContext(ctx), in.ListID, in.FieldID, in.Q, ex))
}

type lookupIn struct {
	ListPathParams
	TargetListID    string `query:"targetListId"`
	TargetLibraryID string `query:"targetLibraryId"`
	Q               string `query:"q" maxLength:"200"`
	LookupFieldID   string `query:"lookupFieldId"`
}

func (h *Handler) lookupOptions(ctx context.Context, in *lookupIn) (*web.Out[LookupOptions], error) {
	return web.Reply(h.svc.LookupOptions(ctx, auth.FromContext(ctx), in.ListID, in.TargetListID, in.TargetLibraryID, in.Q, in.LookupFieldID))
}

func (h *Handler) attachments(ctx context.Context, in *ItemPathParams) (*web.Out[[]ItemAttachment], error) {
	return web.Reply(h.svc.Attachments(ctx, auth.FromContext(ctx), in.ListID, in.ItemID))
}

type AttachmentPathParams struct {
	ItemPathParams
	ID string `path:"id" doc:"attachment id"`
}

func (h *Handler) deleteAttachment(ctx context.Context, in *AttachmentPathParams) (*web.Out[any], error) {
	if err := h.svc.DeleteAttachment(ctx, auth.FromContext(ctx), in.ListID, in.ItemID, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
