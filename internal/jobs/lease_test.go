package jobs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func leaseQueue(db *store.DB) *Queue {
	q := fastQueue(db)
	q.Lease, q.Heartbeat = 1200*time.Millisecond, 100*time.Millisecond
	return q
}

// TestHeartbeatKeepsLease: a job running three times its lease is not handed
// to another worker while its worker heart-beats, and runs once.
func TestHeartbeatKeepsLease(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a, b := leaseQueue(db), leaseQueue(db)
		// a lease long enough for a heartbeat write held up by the other
		// worker's writes on a loaded machine (SQLite has one writer)
		a.Lease, b.Lease = 2500*time.Millisecond, 2500*time.Millisecond
		var runs atomic.Int32
		h := func(ctx context.Context, _ *Job) (any, error) {
			runs.Add(1)
			select {
			case <-time.After(3 * a.Lease):
				return "done", nil
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		a.Handle("t.long", h)
		b.Handle("t.long", h)
		id, _ := a.Enqueue(ctx, "t.long", nil)
		go a.Run(ctx)
		time.Sleep(100 * time.Millisecond)
		go b.Run(ctx) // reaps every 200ms: would take the job over without heartbeats
		j := waitStatusWithin(t, a, id, StatusSucceeded, 30*time.Second)
		if j.Attempts != 1 || runs.Load() != 1 {
			t.Fatalf("attempts %d, runs %d: the job was taken over while its worker lived", j.Attempts, runs.Load())
		}
	})
}

// TestDeadWorkerTakenOver: a job whose worker stopped heart-beating is run by
// another worker once its lease ran out, not after a fixed long lease.
func TestDeadWorkerTakenOver(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := leaseQueue(db)
		q.Handle("t.job", func(context.Context, *Job) (any, error) { return "ok", nil })
		id, _ := q.Enqueue(ctx, "t.job", nil)
		claimed := time.Now()
		if js, err := q.st.claim(ctx, "dead-worker", []string{"t.job"}, 1, time.Now().UTC(), q.Lease); err != nil || len(js) != 1 {
			t.Fatalf("claim: %v %v", js, err)
		}
		go q.Run(ctx)
		j := waitStatus(t, q, id, StatusSucceeded)
		if took := time.Since(claimed); took > 6*time.Second || j.Attempts != 2 {
			t.Fatalf("taken over after %s, attempts %d", took, j.Attempts)
		}
	})
}

// TestLeaseTakenOverStopsHandler: when another worker holds the job, the
// heartbeat ends the handler's ctx with ErrLeaseLost and its outcome is
// dropped.
func TestLeaseTakenOverStopsHandler(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := leaseQueue(db)
		started, cause := make(chan struct{}), make(chan error, 1)
		var once sync.Once
		q.Handle("t.job", func(ctx context.Context, _ *Job) (any, error) {
			once.Do(func() { close(started) })
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return "late", nil
		})
		id, _ := q.Enqueue(ctx, "t.job", nil)
		go q.Run(ctx)
		<-started
		// The other worker holds the job with a lease of its own, so the
		// reaper does not hand it back to the queue meanwhile.
		if _, err := db.W(ctx).ExecContext(ctx, `UPDATE jobs SET locked_by = 'other-worker', locked_until = ? WHERE id = ?`,
			time.Now().UTC().Add(time.Hour), id); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-cause:
			if !errors.Is(err, ErrLeaseLost) {
				t.Fatalf("cause %v", err)
			}
		case <-time.After(20 * time.Second): // heart-beats every 100 ms; the bound only allows for a loaded machine
			t.Fatal("the handler kept running after its lease was taken over")
		}
		time.Sleep(100 * time.Millisecond)
		j, _ := q.Get(ctx, id)
		if j.Status != StatusRunning || string(j.Result) == `"late"` {
			t.Fatalf("the outcome of a run without the lease was recorded: %s %s", j.Status, j.Result)
		}
	})
}

// TestQuietHandlerStops: a handler reporting progress keeps running past
// Quiet; one that reports nothing is stopped with ErrQuiet.
func TestQuietHandlerStops(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := leaseQueue(db)
		// a lease far longer than Quiet: only the quiet rule may stop a job
		// here, even when a loaded machine delays a heartbeat
		q.Lease, q.Quiet = 6*time.Second, 1500*time.Millisecond
		q.Handle("t.busy", func(ctx context.Context, _ *Job) (any, error) {
			for i := range 12 {
				if err := q.Progress(ctx, i); err != nil {
					return nil, err
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return nil, Permanent(context.Cause(ctx))
				}
			}
			return "done", nil
		})
		q.Handle("t.hung", func(ctx context.Context, _ *Job) (any, error) {
			<-ctx.Done()
			return nil, Permanent(context.Cause(ctx))
		})
		busy, _ := q.Enqueue(ctx, "t.busy", nil)
		hung, _ := q.Enqueue(ctx, "t.hung", nil)
		go q.Run(ctx)
		waitStatus(t, q, busy, StatusSucceeded)
		j := waitStatus(t, q, hung, StatusFailed)
		if j.Error != ErrQuiet.Error() {
			t.Fatalf("hung job error %q", j.Error)
		}
	})
}
