package services

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"coreportal/internal/jobs"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// A schedule stored before validation refused impossible dates (or written
// by hand) never fires: its next run is the zero time, not "due now".
func TestImpossibleScheduleNeverFires(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, jobs.New(db))
		start := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
		s.now = func() time.Time { return start }
		no := false
		if _, err := s.Update(ctx, KeyRecycleBin, Patch{IsEnabled: &no}); err != nil {
			t.Fatal(err)
		}
		for _, expr := range []string{"0 0 30 2 *", "0 0 31 4 *"} {
			e := expr
			if _, err := s.Update(ctx, KeyJobsCleanup, Patch{CronExpression: &e}); err == nil {
				t.Fatalf("PATCH %q accepted", expr)
			}
			d, _ := defOf(KeyJobsCleanup)
			if err := s.st.ensure(ctx, d); err != nil {
				t.Fatal(err)
			}
			if res, err := db.W(ctx).ExecContext(ctx, `UPDATE services SET cron_expression = ?, cron_last_tick = NULL WHERE key = ?`, expr, KeyJobsCleanup); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%d rows", n)
			}
			for pass := 0; pass < 4; pass++ {
				ids, err := s.Tick(ctx, start.Add(time.Duration(pass)*10*time.Second))
				if err != nil || len(ids) != 0 {
					t.Fatalf("%q pass %d: fired %v, %v", expr, pass, ids, err)
				}
			}
			if r, err := s.Get(ctx, KeyJobsCleanup); err != nil || r.NextRunAt != nil {
				t.Fatalf("%q: nextRunAt %v, %v", expr, r.NextRunAt, err)
			}
		}
	})
}

// PATCH /services/{key} and a config write (PUT /admin/settings/smtp) of the
// same service at the same time both survive, and a PATCH never moves the
// scheduler's last tick back. On PostgreSQL another transaction holds the
// row while both writers start, so both read before either writes unless the
// read locks the row.
func TestConcurrentServiceUpdatesKeepBoth(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, jobs.New(db))
		if err := s.SetConfig(ctx, KeyJobsCleanup, map[string]any{"retentionDays": 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.W(ctx).ExecContext(ctx, `UPDATE services SET cron_last_tick = 100 WHERE key = ?`, KeyJobsCleanup); err != nil {
			t.Fatal(err)
		}
		no, yes := false, true
		hold := func(inside func(ctx context.Context) error, writers ...func() error) {
			t.Helper()
			if db.Dialect != store.Postgres {
				// SQLite has one writer: run them concurrently, without a holder
				var wg sync.WaitGroup
				for _, w := range writers {
					wg.Add(1)
					go func() { defer wg.Done(); _ = w() }()
				}
				wg.Wait()
				return
			}
			release := make(chan struct{})
			held := make(chan error, 1)
			go func() {
				held <- db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
					if _, err := db.W(ctx).ExecContext(ctx, `UPDATE services SET updated_at = updated_at WHERE key = ?`, KeyJobsCleanup); err != nil {
						return err
					}
					<-release
					return inside(ctx)
				})
			}()
			time.Sleep(100 * time.Millisecond) // the holder has the row
			errs := make(chan error, len(writers))
			for _, w := range writers {
				go func() { errs <- w() }()
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				var waiting int
				if err := db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting >= len(writers) || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			close(release)
			if err := <-held; err != nil {
				t.Fatal(err)
			}
			for range writers {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		}

		// a switch and the config, written at once
		hold(func(context.Context) error { return nil },
			func() error { _, err := s.Update(ctx, KeyJobsCleanup, Patch{IsEnabled: &no}); return err },
			func() error {
				return s.UpdateConfig(ctx, KeyJobsCleanup, func(old json.RawMessage) (any, error) {
					m := map[string]any{}
					_ = json.Unmarshal(old, &m)
					m["retentionDays"] = 7
					return m, nil
				})
			})
		r, err := s.Get(ctx, KeyJobsCleanup)
		if err != nil || r.IsEnabled || r.Config["retentionDays"] != float64(7) {
			t.Fatalf("lost update: isEnabled=%v config=%v %v", r.IsEnabled, r.Config, err)
		}

		// the scheduler advances the tick while a PATCH that changes nothing waits
		hold(func(ctx context.Context) error {
			_, err := db.W(ctx).ExecContext(ctx, `UPDATE services SET cron_last_tick = 200 WHERE key = ?`, KeyJobsCleanup)
			return err
		}, func() error {
			_, err := s.Update(ctx, KeyJobsCleanup, Patch{IsEnabled: &no, CronEnabled: &yes})
			return err
		})
		if db.Dialect == store.Postgres {
			var tick int64
			if err := db.Q(ctx).QueryRowContext(ctx, `SELECT cron_last_tick FROM services WHERE key = ?`, KeyJobsCleanup).Scan(&tick); err != nil || tick != 200 {
				t.Fatalf("cron_last_tick %d, want 200 (moved back by PATCH) %v", tick, err)
			}
		}
	})
}
