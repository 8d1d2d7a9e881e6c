package main

import (
	"context"
	"log/slog"
	"time"

	"coreportal/internal/blob"
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
