package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/applog"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// DefaultMaxAttempts is how often a job is tried unless MaxAttempts says otherwise.
const DefaultMaxAttempts = 5

// Queue enqueues jobs and runs the worker pool.
type Queue struct {
	db *store.DB
	st *jobStore

	mu       sync.RWMutex
	handlers map[string]HandlerFunc
	types    []string
	purgers  map[string]PurgeFunc // OnPurge hooks (purge.go)

	// Concurrency is the number of jobs run at once by Run (default 8: jobs
	// mostly wait on SMTP, LDAP or HTTP).
	Concurrency int
	// Poll is the idle wait between claims when nothing was due (default 1s).
	Poll time.Duration
	// Lease is how long a claimed job stays with its worker without a
	// renewal; the worker renews it every Heartbeat while the handler runs,
	// and the reaper of any worker hands a job whose lease ran out (its
	// worker died) to another worker.
	Lease time.Duration
	// Heartbeat is how often the leases of running jobs are renewed (default 10s).
	Heartbeat time.Duration
	// Quiet bounds how long a handler may run without reporting Progress
	// (default 5 min): then its ctx ends and its lease is no longer renewed,
	// so a hung handler cannot hold a job for ever.
	Quiet time.Duration
	// Backoff is the base of the exponential retry delay (default 2s: 2s, 4s, 8s …, capped at 1h).
	Backoff time.Duration
	// Grace is how long running jobs may finish after Run's ctx ends before
	// their ctx is cancelled too (default 20s, within serve's 30s shutdown).
	Grace time.Duration

	// Observe, when set, is told about every run: its type, outcome
	// (succeeded, failed, retried) and duration (metrics).
	Observe func(jobType, outcome string, elapsed time.Duration)

	system func(ctx context.Context) (*auth.Principal, error)
	byID   func(ctx context.Context, id string) (*auth.Principal, error)
	sysP   atomic.Pointer[auth.Principal] // core-system never changes: looked up once

	wake   chan struct{}
	worker string
	now    func() time.Time

	// Paused, when set, holds every write of background work (running jobs,
	// firing schedules) while it answers true, e.g. while the licence is not
	// valid; the reason is logged when work pauses.
	Paused     func() (bool, string)
	pauseNoted atomic.Bool
}

// Holding reports whether background work must wait now, logging once when
// it pauses and once when it resumes.
func (q *Queue) Holding(ctx context.Context) bool {
	if q.Paused == nil {
		return false
	}
	paused, why := q.Paused()
	if paused && !q.pauseNoted.Swap(true) {
		slog.WarnContext(ctx, "background work paused: no job runs and no schedule fires until this clears", "reason", why)
	}
	if !paused && q.pauseNoted.Swap(false) {
		slog.InfoContext(ctx, "background work resumed")
	}
	return paused
}

// New builds a queue on db.
func New(db *store.DB) *Queue {
	host, _ := os.Hostname()
	return &Queue{
		db: db, st: &jobStore{db: db}, handlers: map[string]HandlerFunc{},
		Concurrency: 8, Poll: time.Second, Lease: 30 * time.Second, Heartbeat: 10 * time.Second, Quiet: 5 * time.Minute, Backoff: 2 * time.Second, Grace: 20 * time.Second,
		wake:   make(chan struct{}, 1),
		worker: host + "/" + strconv.Itoa(os.Getpid()) + "/" + uuid.NewString()[:8],
		now:    time.Now,
	}
}

// UsePrincipals tells the queue how to build the principal a handler runs
// with: core-system by default, or the user named by AsUser / the payload's
// "actorId".
func (q *Queue) UsePrincipals(system func(ctx context.Context) (*auth.Principal, error), byID func(ctx context.Context, id string) (*auth.Principal, error)) {
	q.system, q.byID = system, byID
}

// Handle registers the handler of a job type (before Run).
func (q *Queue) Handle(jobType string, h func(ctx context.Context, job *Job) (result any, err error)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.handlers[jobType]; !ok {
		q.types = append(q.types, jobType)
	}
	q.handlers[jobType] = h
}

// Handles reports whether a handler is registered for jobType.
func (q *Queue) Handles(jobType string) bool {
	q.mu.RLock()
	defer q.mu.RUnlock()
	_, ok := q.handlers[jobType]
	return ok
}

// Enqueue stores a pending job and returns its id. When ctx carries a
// transaction the job is part of it (and runs only if it commits).
func (q *Queue) Enqueue(ctx context.Context, jobType string, payload any, opts ...Option) (string, error) {
	o := enqueueOpts{maxAttempts: DefaultMaxAttempts}
	for _, opt := range opts {
		opt(&o)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("encode payload of %s: %w", jobType, err)
	}
	if o.actorID == "" {
		var named struct {
			ActorID string `json:"actorId"`
		}
		if json.Unmarshal(raw, &named) == nil && named.ActorID != "" {
			o.actorID = named.ActorID
		}
	}
	if o.actorID != "" {
		id, ok := store.CanonicalUUID(o.actorID)
		if !ok {
			return "", fmt.Errorf("job %s: actor id %q is not a UUID", jobType, o.actorID)
		}
		o.actorID = id
	}
	now := q.now().UTC()
	runAt := now
	if !o.runAt.IsZero() {
		runAt = o.runAt
	}
	j := &Job{ID: uuid.NewString(), Type: jobType, Status: StatusPending, Payload: raw, MaxAttempts: o.maxAttempts, RunAt: runAt, CreatedAt: now}
	if err := q.st.insert(ctx, j, o); err != nil {
		return "", err
	}
	store.AfterCommit(ctx, q.Wake)
	return j.ID, nil
}

// Wake makes an idle worker of this process look for work at once.
func (q *Queue) Wake() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Get returns one job (fault NotFound when absent).
func (q *Queue) Get(ctx context.Context, id string) (*Job, error) {
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "id must be a UUID (8-4-4-4-12 hex digits)")
	}
	j, err := q.st.get(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("job")
	}
	if err != nil {
		return nil, fmt.Errorf("read job: %w", err)
	}
	return j, nil
}

// MaxPage bounds the page number of GET /jobs (like web.PageQuery): beyond
// it (page-1)*limit could overflow into a negative or wrapped offset.
const MaxPage = 1_000_000

// CheckPage refuses a page number above MaxPage (400 on field page).
func CheckPage(page int) error {
	if page > MaxPage {
		return fault.Validation("page", "page must be at most %d", MaxPage)
	}
	return nil
}

// List returns a page of jobs, newest first.
func (q *Queue) List(ctx context.Context, f Filter, offset, limit int) ([]*Job, int, error) {
	if offset < 0 {
		return nil, 0, fault.Validation("page", "page out of range")
	}
	return q.st.list(ctx, f, offset, limit)
}

// DeleteCompleted removes succeeded and failed jobs completed more than age ago.
// Jobs of types with an OnPurge hook go through it first.
func (q *Queue) DeleteCompleted(ctx context.Context, age time.Duration) (int64, error) {
	cutoff := q.now().UTC().Add(-age)
	hooked, err := q.purgeHooked(ctx, cutoff)
	if err != nil {
		return hooked, err
	}
	n, err := q.st.deleteCompleted(ctx, cutoff)
	return hooked + n, err
}

// Reap hands running jobs whose lease ran out back to pending.
func (q *Queue) Reap(ctx context.Context) (int64, error) { return q.st.reap(ctx, q.now().UTC()) }

// Run is the worker pool: it claims due jobs of the registered types and runs
// them, Concurrency at a time, until ctx ends; it also reaps stuck jobs.
func (q *Queue) Run(ctx context.Context) {
	n := max(1, q.Concurrency)
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	reapEvery := min(max(q.Lease/6, 200*time.Millisecond), time.Minute)
	lastReap := time.Time{}
	for ctx.Err() == nil {
		if q.Holding(ctx) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(q.Poll):
			}
			continue
		}
		if time.Since(lastReap) >= reapEvery {
			if k, err := q.Reap(ctx); err != nil {
				store.LogLoopError(ctx, "reap stuck jobs", err)
			} else if k > 0 {
				slog.WarnContext(ctx, "stuck jobs returned to the queue", "count", k)
			}
			lastReap = time.Now()
		}
		// wait for a free slot
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		free := 1
	fill:
		for free < n {
			select {
			case slots <- struct{}{}:
				free++
			default:
				break fill
			}
		}
		claimed, err := q.claim(ctx, free)
		store.LogLoopError(ctx, "claim jobs", err)
		for range free - len(claimed) {
			<-slots
		}
		for _, j := range claimed {
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				q.execute(ctx, j)
			}()
		}
		if len(claimed) == free {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		case <-time.After(q.Poll):
		}
	}
}

func (q *Queue) claim(ctx context.Context, n int) ([]*Job, error) {
	q.mu.RLock()
	types := append([]string(nil), q.types...)
	q.mu.RUnlock()
	return q.st.claim(ctx, q.worker, types, n, q.now().UTC(), q.Lease)
}

// RunOnce claims and runs at most one due job; it reports whether it ran one.
// Tests and the admin tooling use it to drive the queue step by step.
func (q *Queue) RunOnce(ctx context.Context) (bool, error) {
	js, err := q.claim(ctx, 1)
	if err != nil || len(js) == 0 {
		return false, err
	}
	q.execute(ctx, js[0])
	return true, nil
}

func (q *Queue) execute(ctx context.Context, j *Job) {
	q.mu.RLock()
	h := q.handlers[j.Type]
	q.mu.RUnlock()
	log := slog.With("jobId", j.ID, "jobType", j.Type, "attempt", j.Attempts)
	// The handler keeps its lease while this worker heart-beats; when the
	// lease was taken over (this worker stalled past it) or the handler went
	// quiet, its ctx ends. On shutdown it gets Grace to finish (a mail half
	// sent and then retried would arrive twice).
	base, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	run := &running{cancel: cancel}
	run.touch()
	runCtx := context.WithValue(base, runKey{}, run)
	stopBeat := q.heartbeat(runCtx, j, run, log)
	defer stopBeat()
	var grace *time.Timer
	var graceMu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		graceMu.Lock()
		grace = time.AfterFunc(q.Grace, func() { cancel(errShutdown) })
		graceMu.Unlock()
	})
	defer func() {
		stop()
		graceMu.Lock()
		if grace != nil {
			grace.Stop()
		}
		graceMu.Unlock()
	}()
	began := time.Now()
	result, err := q.invoke(runCtx, h, j)
	elapsed := time.Since(began)
	stopBeat()
	// Record the outcome even while shutting down.
	doneCtx, doneCancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer doneCancel()
	now := q.now().UTC()
	var held bool
	switch {
	case err == nil:
		var raw []byte
		if raw, err = json.Marshal(result); err != nil {
			held, err = q.st.fail(doneCtx, j.ID, q.worker, "encode result: "+err.Error(), now)
			break
		}
		held, err = q.st.succeed(doneCtx, j.ID, q.worker, raw, now)
		log.Debug("job succeeded")
		q.observe(j.Type, "succeeded", elapsed)
	case isPermanent(err) || j.Attempts >= j.MaxAttempts:
		log.Warn("job failed", "err", err)
		q.observe(j.Type, "failed", elapsed)
		held, err = q.st.fail(doneCtx, j.ID, q.worker, err.Error(), now)
	default:
		at := now.Add(q.backoff(j.Attempts))
		if d, ok := retryDelay(err); ok {
			at = now.Add(d)
		}
		log.Info("job will be retried", "err", err, "at", at)
		q.observe(j.Type, "retried", elapsed)
		held, err = q.st.retry(doneCtx, j.ID, q.worker, err.Error(), at)
	}
	if err != nil {
		log.Error("record job outcome", "err", err)
	} else if !held && !run.lost.Load() {
		log.Warn("job outcome dropped: the lease had expired and the job was handed to another worker")
	}
}

func (q *Queue) invoke(ctx context.Context, h HandlerFunc, j *Job) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	if h == nil {
		return nil, Permanent(fmt.Errorf("no handler for job type %s", j.Type))
	}
	p, err := q.principal(ctx, j)
	if err != nil {
		return nil, err
	}
	if p != nil {
		ctx = auth.WithPrincipal(ctx, p)
	}
	ctx = applog.WithJob(context.WithValue(ctx, jobKey{}, j.ID), j.ID)
	return h(ctx, j)
}

func (q *Queue) principal(ctx context.Context, j *Job) (*auth.Principal, error) {
	if j.ActorID != "" && q.byID != nil {
		p, err := q.byID(ctx, j.ActorID)
		if err != nil {
			return nil, Permanent(fmt.Errorf("acting user %s: %w", j.ActorID, err))
		}
		return p, nil
	}
	if p := q.sysP.Load(); p != nil {
		return p, nil
	}
	if q.system != nil {
		p, err := q.system(ctx)
		if err != nil {
			return nil, fmt.Errorf("core-system principal: %w", err)
		}
		q.sysP.Store(p)
		return p, nil
	}
	return nil, nil
}

func (q *Queue) backoff(attempt int) time.Duration {
	d := q.Backoff << min(attempt-1, 20)
	if d <= 0 || d > time.Hour {
		d = time.Hour
	}
	return d + rand.N(d/4+1) // jitter keeps retries of many jobs apart
}

type jobKey struct{}

// IDFrom returns the id of the job running in ctx ("" outside jobs).
func IDFrom(ctx context.Context) string {
	id, _ := ctx.Value(jobKey{}).(string)
	return id
}

func (q *Queue) observe(jobType, outcome string, elapsed time.Duration) {
	if q.Observe != nil {
		q.Observe(jobType, outcome, elapsed)
	}
}

// Progress records v as the result of the job running in ctx while it runs
// (a long job's progress, read by GET /jobs/{id}); the final result replaces
// it. Outside a job, or once the job has left this worker, it does nothing.
func (q *Queue) Progress(ctx context.Context, v any) error {
	id := IDFrom(ctx)
	if id == "" {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode job progress: %w", err)
	}
	held, err := q.st.progress(context.WithoutCancel(ctx), id, q.worker, raw)
	if err != nil {
		return err
	}
	if run, ok := ctx.Value(runKey{}).(*running); ok {
		if held {
			run.touch()
		} else {
			run.takenOver(ctx, slog.With("jobId", id))
		}
	}
	return nil
}
