package jobs

import (
	"context"
	"encoding/json"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestProgress: a running job's Progress is its result while it runs (GET
// /jobs/{id} shows it); the final result replaces it; outside a job it does
// nothing.
func TestProgress(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := fastQueue(db)
		reported, release := make(chan struct{}), make(chan struct{})
		q.Handle("t.long", func(ctx context.Context, _ *Job) (any, error) {
			if err := q.Progress(ctx, map[string]int{"processed": 3}); err != nil {
				return nil, err
			}
			close(reported)
			<-release
			return map[string]int{"processed": 9}, nil
		})
		if err := q.Progress(ctx, "ignored"); err != nil {
			t.Fatal(err)
		}
		id, err := q.Enqueue(ctx, "t.long", nil)
		if err != nil {
			t.Fatal(err)
		}
		go q.Run(ctx)
		<-reported
		j, err := q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var r map[string]int
		if err := json.Unmarshal(j.Result, &r); err != nil || j.Status != StatusRunning || r["processed"] != 3 {
			t.Fatalf("while running: %s %s %v", j.Status, j.Result, err)
		}
		close(release)
		j = waitStatus(t, q, id, "succeeded")
		if err := json.Unmarshal(j.Result, &r); err != nil || r["processed"] != 9 {
			t.Fatalf("final result %s %v", j.Result, err)
		}
	})
}
