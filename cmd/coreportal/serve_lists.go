package main

import (
	"context"
	"log/slog"
	"net/http"

	"coreportal/internal/lists"
	"coreportal/internal/live"
	"coreportal/internal/recyclebin"
	"coreportal/internal/routes"
)

// buildLists wires the lists capability: service, blob store for attachments,
// recycle-bin kinds and slug routes.
func (a *app) buildLists() error {
	a.lists = lists.NewService(a.db, a.acl, a.nodes)
	a.lists.UseBlobs(a.blobs, a.cfg.MaxUploadBytes)
	a.lists.UseBus(a.bus)
	a.lists.UseJobs(a.jobs)
	if a.cfg.TestSaveDelay > 0 {
		slog.Warn("test hook CORE_TEST_SAVE_DELAY is set: every list item save is slowed", "delay", a.cfg.TestSaveDelay.String())
		a.lists.SlowSaves(a.cfg.TestSaveDelay)
	}
	a.loops = append(a.loops, a.lists.Listen)
	bin := a.access.recycleBin
	a.lists.UseBin(listBin{bin})
	bin.RegisterKind("list",
		func(ctx context.Context, e recyclebin.Entry) error { return a.lists.RestoreList(ctx, e.Payload) },
		func(ctx context.Context, e recyclebin.Entry) error { return a.lists.PurgeList(ctx, e.Payload) })
	bin.RegisterKind("list_item",
		func(ctx context.Context, e recyclebin.Entry) error { return a.lists.RestoreItem(ctx, e.Payload) },
		func(ctx context.Context, e recyclebin.Entry) error { return a.lists.PurgeItem(ctx, e.Payload) })
	a.access.routes.RegisterResolver("list", a.lists.ResolveSlug)
	a.access.routes.RegisterSlugger("list", a.lists.SlugOf)
	a.access.routes.RegisterGate("list", routes.GateOf(a.lists.Get))
	// Live events leave through a queue: a slow or dead bus never delays a save.
	pub := live.NewPublisher(a.live)
	a.loops = append(a.loops, pub.Run)
	a.lists.OnItemSaved(func(_ context.Context, listID string, number int64, item any) {
		pub.Enqueue(listID, number, item)
	})
	return nil
}

// listBin adapts the recycle bin to what the lists service needs.
type listBin struct{ bin *recyclebin.Service }

func (b listBin) Add(ctx context.Context, e lists.BinEntry) (string, error) {
	return b.bin.Add(ctx, recyclebin.Entry{NodeID: e.NodeID, Kind: e.Kind, Title: e.Title, DeletedBy: e.DeletedBy, ScopeID: e.ScopeID, Payload: e.Payload, ResourceID: e.ResourceID})
}

func (b listBin) PurgeWhere(ctx context.Context, kind, scopeID string) error {
	_, err := b.bin.PurgeKindForScope(ctx, kind, scopeID)
	return err
}

// mountLists adds the lists routes that are plain net/http handlers (streamed bodies).
func (a *app) mountLists(mux *http.ServeMux, h *lists.Handler) {
	h.Mount(mux)
	h.MountSheets(mux)
	h.MountLive(mux, a.live, a.auth.Recheck)
}
