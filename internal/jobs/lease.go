package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// The causes a handler's ctx ends with (context.Cause).
var (
	// ErrLeaseLost: the job's lease ran out and another worker took it over;
	// whatever the handler writes now is dropped.
	ErrLeaseLost = errors.New("the job's lease was taken over by another worker")
	// ErrQuiet: the handler reported no progress for longer than Queue.Quiet.
	ErrQuiet    = errors.New("the job reported no progress for too long")
	errShutdown = errors.New("the worker is shutting down")
)

// running is the state of one job on this worker: when it last showed life
// and how to stop it.
type running struct {
	last   atomic.Int64 // unix nanoseconds of the claim or the last progress
	lost   atomic.Bool
	cancel context.CancelCauseFunc
}

type runKey struct{}

func (r *running) touch() { r.last.Store(time.Now().UnixNano()) }

func (r *running) quietFor() time.Duration { return time.Since(time.Unix(0, r.last.Load())) }

// takenOver stops the handler once, logging it once.
func (r *running) takenOver(ctx context.Context, log *slog.Logger) {
	if r.lost.Swap(true) {
		return
	}
	log.WarnContext(ctx, "job lease taken over by another worker: this run stops and its outcome is dropped")
	r.cancel(ErrLeaseLost)
}

// heartbeat renews the lease of j every Heartbeat until the returned stop is
// called (idempotent). It stops the handler when the lease was taken over or
// the handler stayed quiet past Quiet; a renewal that fails (database
// unreachable) is tried again at the next beat, and the lease may then lapse.
func (q *Queue) heartbeat(ctx context.Context, j *Job, run *running, log *slog.Logger) (stop func()) {
	every := q.Heartbeat
	if every <= 0 {
		every = max(q.Lease/3, 10*time.Millisecond)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if q.Quiet > 0 && run.quietFor() > q.Quiet {
				log.WarnContext(ctx, "job stopped: it reported no progress for too long", "quiet", q.Quiet.String())
				run.cancel(ErrQuiet)
				return
			}
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(every, time.Second))
			held, err := q.st.renew(rctx, j.ID, q.worker, q.now().UTC().Add(q.Lease))
			cancel()
			switch {
			case err != nil:
				log.DebugContext(ctx, "renew job lease", "err", err)
			case !held:
				run.takenOver(ctx, log)
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
