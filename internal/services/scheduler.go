package services

import (
	"context"
	"log/slog"
	"time"

	"coreportal/internal/store"
)

// Schedule fires the cron schedules until ctx ends, checking every interval.
// Every instance may run it: a tick fires on exactly one of them.
func (s *Service) Schedule(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if s.q.Holding(ctx) {
			// paused (licence not valid): missed ticks collapse into one run later
		} else {
			_, err := s.Tick(ctx, s.now())
			store.LogLoopError(ctx, "service scheduler", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick fires every schedule due at now and returns the ids of the jobs it
// queued. The last fired tick of a service moves with a conditional UPDATE in
// the same transaction as the job insert, so two schedulers seeing the same
// tick queue one job: the loser's UPDATE matches no row. Missed ticks (all
// instances down) are collapsed into one run.
func (s *Service) Tick(ctx context.Context, now time.Time) ([]string, error) {
	var fired []string
	for _, d := range defs {
		if !d.schedule {
			continue
		}
		if ok, _ := s.availability(ctx, d); !ok {
			continue
		}
		id, err := s.tickOne(ctx, d, now)
		if err != nil {
			return fired, err
		}
		if id != "" {
			fired = append(fired, id)
		}
	}
	return fired, nil
}

func (s *Service) tickOne(ctx context.Context, d def, now time.Time) (string, error) {
	if err := s.st.ensure(ctx, d); err != nil {
		return "", err
	}
	r, err := s.st.get(ctx, d)
	if err != nil || !r.enabled || !r.cronEnabled {
		return "", err
	}
	sched, err := ParseCron(r.expr)
	if err != nil {
		return "", nil // stored before validation tightened; ignored until fixed
	}
	if r.lastTick == nil {
		// first sight of this schedule: start counting from now
		_, err := s.st.advanceTick(ctx, d.key, nil, now.Unix())
		return "", err
	}
	due := sched.Next(time.Unix(*r.lastTick, 0).UTC())
	if due.IsZero() || due.After(now) {
		// zero: the schedule never fires again (an impossible date)
		return "", nil
	}
	for i := 0; i < 10000; i++ {
		n := sched.Next(due)
		if n.IsZero() || n.After(now) {
			break
		}
		due = n
	}
	runner, _ := s.runnerOf(d.key)
	var id string
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		won, err := s.st.advanceTick(ctx, d.key, r.lastTick, due.Unix())
		if err != nil || !won {
			return err
		}
		id, err = s.q.Enqueue(ctx, runner.jobType, map[string]any{"serviceKey": d.key, "trigger": "cron", "tick": due.UTC()})
		return err
	})
	if id != "" {
		slog.InfoContext(ctx, "scheduled service run queued", "service", d.key, "tick", due.UTC(), "jobId", id)
	}
	return id, err
}
