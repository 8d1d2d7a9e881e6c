package services

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestParseCron(t *testing.T) {
	for _, tc := range []struct {
		expr string
		ok   bool
	}{
		{"*/15 * * * *", true}, {"0 2 * * 1-5", true}, {"@hourly", true}, {"@every 2h", true}, {"@daily", true},
		{"@weekly", true}, {"@every 5m", true}, {"@every 10s", false}, {"", false}, {"* * *", false},
		{"61 * * * *", false}, {"0 0 0 * * *", false}, {"CRON_TZ=Europe/Paris 0 2 * * *", false}, {"@yearlyish", false},
		// parse, but never fire: Next is the zero time
		{"0 0 30 2 *", false}, {"0 0 31 4 *", false}, {"0 0 31 2,4,6 *", false}, {"0 0 29 2 *", true}, {"0 0 31 * *", true},
	} {
		_, err := ParseCron(tc.expr)
		if (err == nil) != tc.ok {
			t.Errorf("ParseCron(%q) error %v, want ok=%v", tc.expr, err, tc.ok)
		}
		if err != nil && !fault.Is(err, fault.CodeValidation) {
			t.Errorf("ParseCron(%q): %v is not a validation error", tc.expr, err)
		}
	}
}

func TestRegistryRules(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, jobs.New(db))
		list, err := s.List(ctx)
		if err != nil || len(list) != 7 {
			t.Fatalf("list: %v %v", list, err)
		}
		byKey := map[string]ServiceRecord{}
		for _, r := range list {
			byKey[r.Key] = r
		}
		if byKey[KeyADSync].Available || !byKey[KeyJobsCleanup].Available || byKey[KeyJobsCleanup].NextRunAt == nil {
			t.Fatalf("availability: %+v", byKey)
		}
		yes, no := true, false
		bad := "not cron"
		for _, tc := range []struct {
			key  string
			p    Patch
			code fault.Code
		}{
			{KeyADSync, Patch{IsEnabled: &yes}, fault.CodeConflict},
			{KeySearchCrawler, Patch{IsEnabled: &yes}, fault.CodeConflict},
			{KeyJobsCleanup, Patch{CronExpression: &bad}, fault.CodeValidation},
			{KeyNotifications, Patch{CronEnabled: &yes}, fault.CodeValidation},
			{"nope", Patch{IsEnabled: &no}, fault.CodeNotFound},
		} {
			if _, err := s.Update(ctx, tc.key, tc.p); !fault.Is(err, tc.code) {
				t.Errorf("update %s: %v, want %s", tc.key, err, tc.code)
			}
		}
		hourly := "@every 2h"
		r, err := s.Update(ctx, KeyJobsCleanup, Patch{CronExpression: &hourly, IsEnabled: &no})
		if err != nil || r.CronExpression != "@every 2h" || r.IsEnabled {
			t.Fatalf("update: %+v %v", r, err)
		}
		for key, code := range map[string]fault.Code{KeyADSync: fault.CodeConflict, KeyCoreBackup: fault.CodeValidation,
			KeySearchCrawler: fault.CodeConflict, KeyNotifications: fault.CodeValidation} {
			if _, err := s.Run(ctx, key, nil); !fault.Is(err, code) {
				t.Errorf("run %s: %v, want %s", key, err, code)
			}
		}
		res, err := s.Run(ctx, KeyJobsCleanup, nil)
		if err != nil || res.JobID == "" {
			t.Fatalf("run: %v", err)
		}
		// a registered runner makes the service available
		s.RegisterJob(KeyRecycleBin, "recycleBin.purge", func(ctx context.Context) (any, error) {
			return map[string]int{"days": s.ConfigInt(ctx, KeyRecycleBin, "retentionDays", 30)}, nil
		})
		if r, _ := s.Get(ctx, KeyRecycleBin); !r.Available {
			t.Fatal("recycle-bin not available after RegisterJob")
		}
		// secrets are never returned
		if err := s.SetConfig(ctx, KeyNotifications, map[string]any{"host": "h", "password": "p"}); err != nil {
			t.Fatal(err)
		}
		r, _ = s.Get(ctx, KeyNotifications)
		if _, leaked := r.Config["password"]; leaked || r.Config["hasPassword"] != true {
			t.Fatalf("config: %v", r.Config)
		}
	})
}

// Two schedulers (two instances, separate connections) seeing the same tick queue one job.
func TestOneTickFiresOnce(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		other := db
		if db.Dialect == store.Postgres {
			// a second connection pool, as a second instance would have
			url := storetest.FreshPostgresDB(t)
			var err error
			if db, err = store.Open(ctx, url, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if other, err = store.Open(ctx, url, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			if err := db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
		}
		a, b := New(db, jobs.New(db)), New(other, jobs.New(other))
		start := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
		a.now = func() time.Time { return start }
		every := "* * * * *"
		no := false
		if _, err := a.Update(ctx, KeyJobsCleanup, Patch{CronExpression: &every}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Update(ctx, KeyRecycleBin, Patch{IsEnabled: &no}); err != nil {
			t.Fatal(err)
		}
		total := 0
		for minute := 1; minute <= 3; minute++ {
			now := start.Add(time.Duration(minute) * time.Minute)
			var wg sync.WaitGroup
			var mu sync.Mutex
			fired := 0
			for _, s := range []*Service{a, b, a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ids, err := s.Tick(ctx, now)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					fired += len(ids)
					mu.Unlock()
				}()
			}
			wg.Wait()
			if fired != 1 {
				t.Fatalf("minute %d: %d runs, want 1", minute, fired)
			}
			total += fired
			// the same tick seen again fires nothing
			if ids, _ := b.Tick(ctx, now.Add(10*time.Second)); len(ids) != 0 {
				t.Fatalf("tick fired twice")
			}
		}
		_, n, _ := a.q.List(ctx, jobs.Filter{Type: "jobs.cleanup"}, 0, 10)
		if n != total {
			t.Fatalf("%d jobs queued, want %d", n, total)
		}
		// a downtime of many ticks collapses into one run
		if ids, _ := a.Tick(ctx, start.Add(90*time.Minute)); len(ids) != 1 {
			t.Fatalf("catch-up: %d runs", len(ids))
		}
	})
}

// ad-sync is switched on only when its enable check (the directory
// connection check) passes; the refusal is a 409 carrying the reason, and a
// service already on is not checked again.
func TestEnableCheck(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, jobs.New(db))
		s.RegisterRunner(KeyADSync, "adSync.run", func(context.Context) bool { return true })
		calls := 0
		var failure error = fault.Unavailable("the directory server cannot be reached")
		s.RegisterEnableCheck(KeyADSync, func(context.Context) error { calls++; return failure })
		yes := true
		_, err := s.Update(ctx, KeyADSync, Patch{IsEnabled: &yes})
		fe, ok := fault.As(err)
		if !ok || fe.Code != fault.CodeConflict || fe.Details["reason"] != "the directory server cannot be reached" {
			t.Fatalf("enable with a failing check: %v", err)
		}
		if r, _ := s.Get(ctx, KeyADSync); r.IsEnabled {
			t.Fatal("enabled although the check failed")
		}
		failure = nil
		if r, err := s.Update(ctx, KeyADSync, Patch{IsEnabled: &yes}); err != nil || !r.IsEnabled {
			t.Fatalf("enable with a passing check: %+v %v", r, err)
		}
		failure = errors.New("down")
		if _, err := s.Update(ctx, KeyADSync, Patch{IsEnabled: &yes}); err != nil || calls != 2 {
			t.Fatalf("re-enabling an enabled service: %v, %d checks", err, calls)
		}
	})
}
