package main

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
	"coreportal/internal/filelock"
	"coreportal/internal/libraries"
	"coreportal/internal/recyclebin"
	"coreportal/internal/routes"
)

// buildLibraries wires document libraries: service (on the blob store opened
// by buildLists), recycle-bin kinds, slug routes and the lists' library lookups.
func (a *app) buildLibraries() {
	bin := a.access.recycleBin
	a.libraries = libraries.NewService(a.db, a.acl, a.nodes, a.blobs, a.cfg.MaxUploadBytes, libraryBin{bin}, subjects{a})
	a.libraries.UseLocks(filelock.New(a.db))
	bin.RegisterKind("library",
		func(ctx context.Context, e recyclebin.Entry) error { return a.libraries.RestoreLibrary(ctx, e.Payload) },
		func(ctx context.Context, e recyclebin.Entry) error { return a.libraries.PurgeLibrary(ctx, e.Payload) })
	bin.RegisterKind("file",
		func(ctx context.Context, e recyclebin.Entry) error { return a.libraries.RestoreFile(ctx, e.Payload) },
		func(ctx context.Context, e recyclebin.Entry) error { return a.libraries.PurgeFile(ctx, e.Payload) })
	a.access.routes.RegisterResolver("library", a.libraries.ResolveSlug)
	a.access.routes.RegisterSlugger("library", a.libraries.SlugOf)
	a.access.routes.RegisterGate("library", routes.GateOf(a.libraries.Get))
	a.lists.UseLibraries(a.libraries)
}

// libraryBin adapts the recycle bin to what the libraries service needs.
type libraryBin struct{ bin *recyclebin.Service }

func (b libraryBin) Add(ctx context.Context, e libraries.BinEntry) (string, error) {
	return b.bin.Add(ctx, recyclebin.Entry{NodeID: e.NodeID, Kind: e.Kind, Title: e.Title, DeletedBy: e.DeletedBy, ScopeID: e.ScopeID, Payload: e.Payload, ResourceID: e.ResourceID})
}

func (b libraryBin) PurgeWhere(ctx context.Context, kind, scopeID string) error {
	_, err := b.bin.PurgeKindForScope(ctx, kind, scopeID)
	return err
}

// subjects names users and groups for person values of library fields.
type subjects struct{ a *app }

func (s subjects) Subject(ctx context.Context, principalType, id string) (string, error) {
	if principalType == "group" {
		g, err := s.a.access.groups.Get(ctx, id)
		if err != nil {
			return "", err
		}
		return g.Name, nil
	}
	u, err := s.a.users.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if u.IsSystem {
		return "", fault.NotFound("user")
	}
	return u.DisplayName, nil
}

// mountLibraries adds the library operations: Huma ones and the streamed upload and download.
func (a *app) mountLibraries(mux *http.ServeMux, api huma.API) {
	h := libraries.NewHandler(a.libraries)
	h.Mount(mux)
	h.Register(api)
}
