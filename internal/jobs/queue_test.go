package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func fastQueue(db *store.DB) *Queue {
	q := New(db)
	q.Poll, q.Backoff = 20*time.Millisecond, time.Millisecond
	return q
}

func waitStatus(t *testing.T, q *Queue, id string, want string) *Job {
	t.Helper()
	return waitStatusWithin(t, q, id, want, 10*time.Second)
}

func waitStatusWithin(t *testing.T, q *Queue, id string, want string, within time.Duration) *Job {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		j, err := q.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == want {
			return j
		}
		time.Sleep(10 * time.Millisecond)
	}
	j, _ := q.Get(context.Background(), id)
	t.Fatalf("job %s: status %s (error %q), want %s", id, j.Status, j.Error, want)
	return nil
}

func TestQueueLifecycle(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := fastQueue(db)
		var flaky atomic.Int32
		q.Handle("t.ok", func(ctx context.Context, j *Job) (any, error) {
			var p struct{ N int }
			if err := j.Decode(&p); err != nil {
				return nil, err
			}
			return map[string]int{"double": p.N * 2}, nil
		})
		q.Handle("t.flaky", func(ctx context.Context, j *Job) (any, error) {
			if flaky.Add(1) < 3 {
				return nil, errors.New("not yet")
			}
			return "done", nil
		})
		q.Handle("t.bad", func(ctx context.Context, j *Job) (any, error) { return nil, errors.New("always") })
		q.Handle("t.perm", func(ctx context.Context, j *Job) (any, error) { return nil, Permanent(errors.New("never")) })
		q.Handle("t.panic", func(ctx context.Context, j *Job) (any, error) { panic("boom") })

		ok, _ := q.Enqueue(ctx, "t.ok", map[string]int{"N": 21})
		fl, _ := q.Enqueue(ctx, "t.flaky", nil)
		bad, _ := q.Enqueue(ctx, "t.bad", nil, MaxAttempts(2))
		perm, _ := q.Enqueue(ctx, "t.perm", nil)
		pan, _ := q.Enqueue(ctx, "t.panic", nil, MaxAttempts(1))
		// a job enqueued in a rolled-back transaction never exists
		var lost string
		_ = db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			lost, _ = q.Enqueue(ctx, "t.ok", map[string]int{"N": 1})
			return errors.New("rollback")
		})
		go q.Run(ctx)

		j := waitStatus(t, q, ok, StatusSucceeded)
		var res struct{ Double int }
		_ = j.Decode(&res)
		if err := json.Unmarshal(j.Result, &res); err != nil || res.Double != 42 || j.Attempts != 1 || j.StartedAt == nil || j.CompletedAt == nil {
			t.Fatalf("ok job: %+v result %s", j, j.Result)
		}
		if j = waitStatus(t, q, fl, StatusSucceeded); j.Attempts != 3 {
			t.Fatalf("flaky attempts %d, want 3", j.Attempts)
		}
		if j = waitStatus(t, q, bad, StatusFailed); j.Attempts != 2 || j.Error != "always" {
			t.Fatalf("bad job: attempts %d error %q", j.Attempts, j.Error)
		}
		if j = waitStatus(t, q, perm, StatusFailed); j.Attempts != 1 {
			t.Fatalf("permanent failure retried: %d attempts", j.Attempts)
		}
		if j = waitStatus(t, q, pan, StatusFailed); j.Error == "" {
			t.Fatal("panic not recorded")
		}
		if _, err := q.Get(ctx, lost); err == nil {
			t.Fatal("job of a rolled-back transaction exists")
		}
		rows, total, err := q.List(ctx, Filter{Status: StatusFailed}, 0, 50)
		if err != nil || total != 3 || len(rows) != 3 {
			t.Fatalf("list failed: total %d rows %d err %v", total, len(rows), err)
		}
		if _, total, _ = q.List(ctx, Filter{Type: "t.ok"}, 0, 50); total != 1 {
			t.Fatalf("filter by type: %d", total)
		}
	})
}

func TestReaperAndCleanup(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		q := fastQueue(db)
		q.Lease = 50 * time.Millisecond
		var runs atomic.Int32
		q.Handle("t.stuck", func(ctx context.Context, j *Job) (any, error) { runs.Add(1); return nil, nil })
		id, _ := q.Enqueue(ctx, "t.stuck", nil)
		// a worker claims the job and dies
		if _, err := q.st.claim(ctx, "dead-worker", []string{"t.stuck"}, 1, time.Now().UTC(), q.Lease); err != nil {
			t.Fatal(err)
		}
		if ran, _ := q.RunOnce(ctx); ran {
			t.Fatal("claimed a running job")
		}
		time.Sleep(60 * time.Millisecond)
		if n, err := q.Reap(ctx); err != nil || n != 1 {
			t.Fatalf("reap: %d %v", n, err)
		}
		if ran, err := q.RunOnce(ctx); !ran || err != nil {
			t.Fatalf("reaped job not run: %v", err)
		}
		j, _ := q.Get(ctx, id)
		if j.Status != StatusSucceeded || j.Attempts != 2 {
			t.Fatalf("after reap: %+v", j)
		}
		// the dead worker's late outcome is ignored
		if held, _ := q.st.fail(ctx, id, "dead-worker", "late", time.Now().UTC()); held {
			t.Fatal("a worker without the lease recorded an outcome")
		}
		// cleanup keeps recent jobs and deletes old ones
		if d, _ := q.Retention(ctx); d != DefaultRetentionDays {
			t.Fatalf("default retention %d", d)
		}
		if err := q.SetRetention(ctx, 0); err == nil {
			t.Fatal("retention 0 accepted")
		}
		if err := q.SetRetention(ctx, 1); err != nil {
			t.Fatal(err)
		}
		res, err := q.Cleanup(ctx)
		if err != nil || res.(map[string]any)["deleted"].(int64) != 0 {
			t.Fatalf("cleanup deleted a recent job: %v %v", res, err)
		}
		q.now = func() time.Time { return time.Now().Add(49 * time.Hour) }
		res, _ = q.Cleanup(ctx)
		if res.(map[string]any)["deleted"].(int64) != 1 {
			t.Fatalf("cleanup: %v", res)
		}
	})
}

func TestOrderedJobsRunInSequence(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q := fastQueue(db)
		q.Concurrency = 8
		var mu sync.Mutex
		var seen []int
		q.Handle("t.seq", func(ctx context.Context, j *Job) (any, error) {
			var p struct{ I int }
			_ = j.Decode(&p)
			time.Sleep(time.Millisecond)
			mu.Lock()
			seen = append(seen, p.I)
			mu.Unlock()
			return nil, nil
		})
		var last string
		for i := 1; i <= 20; i++ {
			last, _ = q.Enqueue(ctx, "t.seq", map[string]int{"I": i}, Ordered("item-1", int64(i)))
		}
		go q.Run(ctx)
		waitStatus(t, q, last, StatusSucceeded)
		mu.Lock()
		defer mu.Unlock()
		for i, v := range seen {
			if v != i+1 {
				t.Fatalf("order broken: %v", seen)
			}
		}
	})
}

// Two queues on separate connection pools (two worker processes) never run
// one job twice.
func TestTwoWorkersNeverRunAJobTwice(t *testing.T) {
	if storetest.PostgresURL(t) == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	url := storetest.FreshPostgresDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var dbs []*store.DB
	for range 2 {
		db, err := store.Open(ctx, url, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(ctx, slogDiscard()); err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	const n = 600
	var mu sync.Mutex
	runs := map[string]int{}
	by := map[string]int{}
	handler := func(worker string) func(context.Context, *Job) (any, error) {
		return func(ctx context.Context, j *Job) (any, error) {
			mu.Lock()
			runs[j.ID]++
			by[worker]++
			mu.Unlock()
			return nil, nil
		}
	}
	qa, qb := fastQueue(dbs[0]), fastQueue(dbs[1])
	qa.Concurrency, qb.Concurrency = 6, 6
	qa.Handle("t.once", handler("a"))
	qb.Handle("t.once", handler("b"))
	for i := range n {
		if _, err := qa.Enqueue(ctx, "t.once", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	go qa.Run(ctx)
	go qb.Run(ctx)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, done, _ := qa.List(ctx, Filter{Status: StatusSucceeded}, 0, 1)
		if done == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d jobs done", done, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(runs) != n {
		t.Fatalf("%d distinct jobs ran, want %d", len(runs), n)
	}
	for id, c := range runs {
		if c != 1 {
			t.Fatalf("job %s ran %d times", id, c)
		}
	}
	if by["a"] == 0 || by["b"] == 0 {
		t.Fatalf("one worker did everything: %v", by)
	}
	t.Logf("jobs per worker: %v", by)
}

// A job running when the worker pool stops may finish within the grace period.
func TestShutdownLetsRunningJobsFinish(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx, stop := context.WithCancel(context.Background())
	q := fastQueue(db)
	q.Grace = 2 * time.Second
	started := make(chan struct{})
	q.Handle("t.slow", func(ctx context.Context, j *Job) (any, error) {
		close(started)
		select {
		case <-time.After(300 * time.Millisecond):
			return "finished", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	id, _ := q.Enqueue(context.Background(), "t.slow", nil)
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	<-started
	stop()
	<-done
	if j, _ := q.Get(context.Background(), id); j.Status != StatusSucceeded {
		t.Fatalf("job cut off by shutdown: %s %q", j.Status, j.Error)
	}
}

func TestHandlersRunAsSystemOrActingUser(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	q := fastQueue(db)
	sys := &auth.Principal{UserID: "00000000-0000-0000-0000-00000000000a", Login: "core-system", IsAdmin: true, IsSystem: true}
	q.UsePrincipals(func(context.Context) (*auth.Principal, error) { return sys, nil },
		func(_ context.Context, id string) (*auth.Principal, error) {
			return &auth.Principal{UserID: id, Login: "someone"}, nil
		})
	q.Handle("t.who", func(ctx context.Context, j *Job) (any, error) {
		if IDFrom(ctx) != j.ID {
			return nil, errors.New("job id not in ctx")
		}
		return auth.FromContext(ctx).Login, nil
	})
	user := "00000000-0000-0000-0000-00000000000b"
	a, _ := q.Enqueue(ctx, "t.who", nil)
	b, _ := q.Enqueue(ctx, "t.who", nil, AsUser(user))
	c, _ := q.Enqueue(ctx, "t.who", map[string]string{"actorId": user})
	if _, err := q.Enqueue(ctx, "t.who", nil, AsUser("not-a-uuid")); err == nil {
		t.Fatal("bad actor accepted")
	}
	for range 3 {
		if ran, err := q.RunOnce(ctx); !ran || err != nil {
			t.Fatal("not run", err)
		}
	}
	for id, want := range map[string]string{a: `"core-system"`, b: `"someone"`, c: `"someone"`} {
		if j, _ := q.Get(ctx, id); string(j.Result) != want {
			t.Errorf("job ran as %s, want %s", j.Result, want)
		}
	}
}
