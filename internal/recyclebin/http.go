package recyclebin

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// Handler serves /nodes/{nodeId}/recycle-bin.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/nodes/{nodeId}/recycle-bin", "listRecycleBin", "Recycle-bin entries of a node", web.User, "recycle-bin")
	op.Description = "Paged, newest first. Needs edit on the node (the bin shows titles of deleted content). " +
		"An entry is listed, and counted in meta.total, only when the caller could view the deleted content as it was: its own permissions included " +
		"(an item, file or folder with its own permissions, a list, library or survey behind permissions the caller lacks is hidden from node editors who could not view it). " +
		"Entries that do not name their content follow the list, library or folder they were deleted from while it exists, else the node right alone. Administrators see every entry. " +
		"Entries older than the retention of service recycle-bin are purged on its schedule."
	web.Register(api, op, h.list)
	op = web.Op(http.MethodPost, "/nodes/{nodeId}/recycle-bin/{entryId}/restore", "restoreRecycleBinEntry", "Restore an entry", web.User, "recycle-bin")
	op.Description = "Needs delete on the node and delete on the deleted content as it was (its own permissions included; for older entries, on the list, library or folder it was deleted from while that exists) " +
		"(404 when the entry does not exist; 403 when the caller could not view the content or views it without delete). The content comes back where it was; the entry is removed. 409 when the content cannot come back (e.g. its slug was taken meanwhile)."
	web.Register(api, op, h.restore)
	op = web.Op(http.MethodDelete, "/nodes/{nodeId}/recycle-bin/{entryId}", "purgeRecycleBinEntry", "Purge an entry for good", web.User, "recycle-bin")
	op.Description = "Needs delete on the node and delete on the deleted content as it was (its own permissions included; for older entries, on the list, library or folder it was deleted from while that exists) (404 when the entry does not exist; 403 when the caller could not view the content or views it without delete)."
	web.Register(api, op, h.purge)
}

// BinEntry is an entry as the API shows it.
type BinEntry struct {
	ID        string    `json:"id" format:"uuid"`
	Kind      string    `json:"kind" doc:"list, list_item, library, file, page, …"`
	Title     string    `json:"title"`
	DeletedAt time.Time `json:"deletedAt"`
	DeletedBy *string   `json:"deletedBy" doc:"id of the user who deleted it; null for the system"`
}

func out(e Entry) BinEntry {
	o := BinEntry{ID: e.ID, Kind: e.Kind, Title: e.Title, DeletedAt: e.DeletedAt}
	if e.DeletedBy != "" {
		by := e.DeletedBy
		o.DeletedBy = &by
	}
	return o
}

type recyclebinListIn struct {
	NodeID string `path:"nodeId" format:"uuid"`
	web.PageQuery
}

func (h *Handler) list(ctx context.Context, in *recyclebinListIn) (*web.PagedOut[[]BinEntry, web.PageMeta], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	es, total, err := h.svc.List(ctx, p, in.NodeID, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	res := make([]BinEntry, len(es))
	for i, e := range es {
		res[i] = out(e)
	}
	return web.Paged(res, web.NewPageMeta(in.PageQuery, total)), nil
}

type recyclebinEntryIn struct {
	NodeID  string `path:"nodeId" format:"uuid"`
	EntryID string `path:"entryId" format:"uuid"`
}

func (h *Handler) restore(ctx context.Context, in *recyclebinEntryIn) (*web.Out[BinEntry], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	e, err := h.svc.Restore(ctx, p, in.NodeID, in.EntryID)
	if err != nil {
		return nil, err
	}
	return web.OK(out(e)), nil
}

func (h *Handler) purge(ctx context.Context, in *recyclebinEntryIn) (*web.Out[any], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.Purge(ctx, p, in.NodeID, in.EntryID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
