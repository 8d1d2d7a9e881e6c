package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"coreportal/internal/blob"
	"coreportal/internal/store"
)

// sweepLeftovers removes, at the worker's start and then every hour, what
// writes cut off by a crash left behind: unfinished multipart uploads of the
// bucket and temporary files of uploads, module packages and text
// extraction, older than CORE_UPLOAD_SWEEP_AGE. Several workers may sweep at
// once: every removal is idempotent.
func (a *app) sweepLeftovers(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		a.sweepOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (a *app) sweepOnce(ctx context.Context) {
	age := a.cfg.UploadSweepAge
	if s, ok := a.blobs.(blob.Sweeper); ok {
		n, err := s.Sweep(ctx, age)
		store.LogLoopError(ctx, "sweep unfinished blob writes", err)
		if n > 0 {
			slog.InfoContext(ctx, "unfinished blob writes removed", "count", n, "olderThan", age.String())
		}
	}
	n, err := blob.SweepFiles(ctx, os.TempDir(), age, "coremod-", "coreportal-text-")
	store.LogLoopError(ctx, "sweep temporary files", err)
	if n > 0 {
		slog.InfoContext(ctx, "leftover temporary files removed", "count", n)
	}
}
