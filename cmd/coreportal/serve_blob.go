package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"coreportal/internal/blob"
	"coreportal/internal/system"
)

// openBlobs opens the blob store of CORE_BLOB_URL (attachments, files,
// versions, avatars). An S3 bucket that is missing or unreachable stops the
// start with a clear error rather than failing the first upload.
func (a *app) openBlobs(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	blobs, err := blob.Open(ctx, a.cfg.BlobURL, a.cfg.DataDir)
	if err != nil {
		return err
	}
	a.blobs = blobs
	kind := "local folder"
	if _, ok := blobs.(*blob.S3); ok {
		kind = "S3"
	}
	slog.Info("blob store", "kind", kind)
	return nil
}

// mountReady serves GET /ready: database, bus and blob store must answer.
func (a *app) mountReady(mux *http.ServeMux) {
	blobs := func(ctx context.Context) error {
		if p, ok := a.blobs.(blob.Pinger); ok {
			return p.Ping(ctx)
		}
		return nil
	}
	mux.HandleFunc("GET /ready", system.Ready(a.monitorInfo,
		system.Check{Name: "database", Probe: a.db.Ping},
		system.Check{Name: "bus", Probe: a.bus.Healthy},
		system.Check{Name: "blobs", Probe: blobs},
	))
}
