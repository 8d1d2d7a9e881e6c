package main

import (
	"net/http"

	"coreportal/internal/blob"
	"coreportal/internal/lists"
)

// buildLists wires the lists capability: service, blob store for attachments.
func (a *app) buildLists() error {
	blobs, err := blob.Open(a.cfg.BlobURL, a.cfg.DataDir)
	if err != nil {
		return err
	}
	a.blobs = blobs
	a.lists = lists.NewService(a.db, a.acl, a.nodes)
	a.lists.UseBlobs(blobs, a.cfg.MaxUploadBytes)
	return nil
}

// mountLists adds the lists routes that are plain net/http handlers (streamed bodies).
func (a *app) mountLists(mux *http.ServeMux, h *lists.Handler) {
	h.Mount(mux)
}
