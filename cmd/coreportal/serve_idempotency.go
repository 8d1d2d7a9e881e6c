package main

import (
	"context"
	"time"

	"coreportal/internal/idempotency"
)

// buildIdempotency wires the Idempotency-Key middleware and the purge of
// keys older than 24 h (every process: the delete is idempotent).
func (a *app) buildIdempotency() {
	a.idem = idempotency.New(a.db)
	a.loops = append(a.loops, func(ctx context.Context) { a.idem.Purge(ctx, 10*time.Minute) })
}
