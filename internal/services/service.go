package services

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
)

// Service holds the rules of the service registry.
type Service struct {
	db *store.DB
	st *svcStore
	q  *jobs.Queue

	mu      sync.RWMutex
	runners map[string]runner
	checks  map[string]func(ctx context.Context) error
	now     func() time.Time
}

type runner struct {
	jobType   string
	available func(ctx context.Context) bool
}

// New builds the registry. jobs-cleanup is wired to q at once.
func New(db *store.DB, q *jobs.Queue) *Service {
	s := &Service{db: db, st: &svcStore{db: db}, q: q, runners: map[string]runner{}, checks: map[string]func(context.Context) error{}, now: time.Now}
	s.RegisterJob(KeyJobsCleanup, "jobs.cleanup", q.Cleanup)
	return s
}

// RegisterRunner declares that runs of service key are jobs of jobType (whose
// handler the capability registers on the queue). available, when not nil,
// is asked whether the service can run now (e.g. ad-sync: directory configured);
// it is called by GET /services and on every scheduler pass, so it must be
// cheap (read settings, no network).
func (s *Service) RegisterRunner(key string, jobType string, available func(ctx context.Context) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runners[key] = runner{jobType: jobType, available: available}
}

// RegisterJob registers fn as the job handler of service key and makes the
// service available (e.g. recycle-bin → recyclebin.Service.PurgeOlderThan).
// fn runs as core-system; ConfigInt reads the service's settings.
func (s *Service) RegisterJob(key, jobType string, fn func(ctx context.Context) (any, error)) {
	s.q.Handle(jobType, func(ctx context.Context, _ *jobs.Job) (any, error) { return fn(ctx) })
	s.RegisterRunner(key, jobType, nil)
}

// RegisterEnableCheck sets a check that must pass before service key is
// switched on (ad-sync: a live connection check of the directory). Its error
// message becomes the reason of the 409 CONFLICT refusal. It runs outside any
// transaction, so it may take network time.
func (s *Service) RegisterEnableCheck(key string, fn func(ctx context.Context) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks[key] = fn
}

// checkEnable runs the enable check of d when p switches it on.
func (s *Service) checkEnable(ctx context.Context, d def, p Patch) error {
	if p.IsEnabled == nil || !*p.IsEnabled {
		return nil
	}
	s.mu.RLock()
	fn := s.checks[d.key]
	s.mu.RUnlock()
	if fn == nil {
		return nil
	}
	if r, err := s.st.get(ctx, d); err != nil || r.enabled {
		return err
	}
	if ok, why := s.availability(ctx, d); !ok {
		return refusal(d, "isEnabled", "enable", why)
	}
	if err := fn(ctx); err != nil {
		reason := err.Error()
		if fe, ok := fault.As(err); ok {
			reason = fe.Message
		}
		return fault.Conflict("cannot enable %s: %s", d.key, reason).With("reason", reason)
	}
	return nil
}

func (s *Service) runnerOf(key string) (runner, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.runners[key]
	return r, ok
}

// availability says whether d can run now, and why not.
func (s *Service) availability(ctx context.Context, d def) (bool, string) {
	if d.key == KeyNotifications || d.key == KeyOIDC {
		return true, ""
	}
	r, ok := s.runnerOf(d.key)
	if !ok {
		return false, d.unavailable
	}
	if r.available != nil && !r.available(ctx) {
		return false, d.unavailable
	}
	return true, ""
}

func lookup(key string) (def, error) {
	d, ok := defOf(key)
	if !ok {
		return def{}, fault.NotFound("service")
	}
	return d, nil
}

// List returns every service.
func (s *Service) List(ctx context.Context) ([]ServiceRecord, error) {
	out := make([]ServiceRecord, 0, len(defs))
	for _, d := range defs {
		r, err := s.record(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Get returns one service.
func (s *Service) Get(ctx context.Context, key string) (ServiceRecord, error) {
	d, err := lookup(key)
	if err != nil {
		return ServiceRecord{}, err
	}
	return s.record(ctx, d)
}

func (s *Service) record(ctx context.Context, d def) (ServiceRecord, error) {
	r, err := s.st.get(ctx, d)
	if err != nil {
		return ServiceRecord{}, err
	}
	avail, reason := s.availability(ctx, d)
	rec := ServiceRecord{Key: d.key, Title: d.title, IsEnabled: r.enabled, CronEnabled: r.cronEnabled, CronExpression: r.expr,
		Available: avail, Reason: reason, ManualRun: d.manual, HasSchedule: d.schedule, JobType: d.jobType, Config: redact(r.config)}
	if avail && d.schedule && r.enabled && r.cronEnabled {
		if sched, err := ParseCron(r.expr); err == nil {
			if next := sched.Next(s.now().UTC()); !next.IsZero() {
				rec.NextRunAt = &next
			}
		}
	}
	return rec, nil
}

func redact(raw json.RawMessage) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(raw, &m)
	for _, k := range secretKeys {
		if v, ok := m[k]; ok {
			delete(m, k)
			s, _ := v.(string)
			m["hasPassword"] = s != ""
		}
	}
	return m
}

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseCron validates a schedule: five fields (minute hour day month weekday)
// or a descriptor (@hourly, @daily, @weekly, @monthly, @every 2h; @every at
// least one minute). Times are UTC. A schedule that never fires (e.g.
// "0 0 30 2 *", 30 February) is refused: its Next is the zero time, which
// would otherwise read as "due" on every scheduler pass.
func ParseCron(expr string) (cron.Schedule, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, fault.Validation("cronExpression", "cronExpression is required when cronEnabled is true")
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, fault.Validation("cronExpression", "time zones are not supported: schedules run in UTC")
	}
	sched, err := parser.Parse(expr)
	if err != nil {
		return nil, fault.Validation("cronExpression", "invalid cron expression: %v", err)
	}
	if every, ok := sched.(cron.ConstantDelaySchedule); ok && every.Delay < time.Minute {
		return nil, fault.Validation("cronExpression", "@every needs at least one minute")
	}
	if sched.Next(time.Now().UTC()).IsZero() {
		return nil, fault.Validation("cronExpression", "%q never fires: no such date", expr)
	}
	return sched, nil
}

// Update changes switches and schedule. Enabling a service that cannot run
// is refused (409 CONFLICT with details.reason, e.g. ad-sync while the directory is not configured or its connection check fails).
func (s *Service) Update(ctx context.Context, key string, p Patch) (ServiceRecord, error) {
	d, err := lookup(key)
	if err != nil {
		return ServiceRecord{}, err
	}
	if err := s.checkEnable(ctx, d, p); err != nil {
		return ServiceRecord{}, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		r, err := s.st.lock(ctx, d)
		if err != nil {
			return err
		}
		old := r
		if p.IsEnabled != nil {
			if *p.IsEnabled && !r.enabled {
				if ok, why := s.availability(ctx, d); !ok {
					return refusal(d, "isEnabled", "enable", why)
				}
			}
			r.enabled = *p.IsEnabled
		}
		if p.CronExpression != nil {
			r.expr = strings.TrimSpace(*p.CronExpression)
		}
		if p.CronEnabled != nil {
			r.cronEnabled = *p.CronEnabled
		}
		if !d.schedule && (p.CronEnabled != nil && *p.CronEnabled || p.CronExpression != nil && *p.CronExpression != "") {
			return fault.Validation("cronEnabled", "%s has no schedule", d.key)
		}
		if r.cronEnabled || (p.CronExpression != nil && r.expr != "") {
			if _, err := ParseCron(r.expr); err != nil {
				return err
			}
		}
		if r.expr == old.expr && r.cronEnabled == old.cronEnabled && r.enabled == old.enabled {
			return nil
		}
		// a changed schedule starts from now: no catch-up run for ticks that
		// passed (the stored tick only ever moves forward, see putSwitches)
		t := s.now().Unix()
		audit.Record(ctx, audit.Entry{Action: audit.ServiceUpdate, ResourceType: "service", ResourceID: d.key,
			Before: map[string]any{"isEnabled": old.enabled, "cronEnabled": old.cronEnabled, "cronExpression": old.expr},
			After:  map[string]any{"isEnabled": r.enabled, "cronEnabled": r.cronEnabled, "cronExpression": r.expr}})
		return s.st.putSwitches(ctx, d.key, r, &t)
	})
	if err != nil {
		return ServiceRecord{}, err
	}
	return s.Get(ctx, key)
}

// refusal is the error of an attempt to enable or run (action) a service that
// is not available, with details.reason.
func refusal(d def, field, action, why string) error {
	if d.refuse == fault.CodeValidation {
		return fault.Validation(field, "cannot %s %s: %s", action, d.key, why).With("reason", why)
	}
	return fault.New(d.refuse, "cannot %s %s: %s", action, d.key, why).With("reason", why)
}

// ServiceRunResult is the answer of a manual run.
type ServiceRunResult struct {
	JobID  string `json:"jobId" format:"uuid"`
	Status string `json:"status"`
}

// Run queues a manual run of service key; options are handed to the job
// payload (ad-sync: deactivateMissing).
func (s *Service) Run(ctx context.Context, key string, options map[string]any) (ServiceRunResult, error) {
	d, err := lookup(key)
	if err != nil {
		return ServiceRunResult{}, err
	}
	if !d.manual {
		return ServiceRunResult{}, fault.Validation("key", "%s has no manual run", d.key)
	}
	if ok, why := s.availability(ctx, d); !ok {
		return ServiceRunResult{}, refusal(d, "key", "run", why)
	}
	r, _ := s.runnerOf(d.key)
	payload := map[string]any{"serviceKey": d.key, "trigger": "manual"}
	if p := auth.FromContext(ctx); p != nil {
		payload["requestedBy"] = p.UserID
	}
	if len(options) > 0 {
		payload["options"] = options
	}
	id, err := s.q.Enqueue(ctx, r.jobType, payload)
	if err != nil {
		return ServiceRunResult{}, err
	}
	return ServiceRunResult{JobID: id, Status: jobs.StatusPending}, nil
}

// Enabled reports the isEnabled switch of a service.
func (s *Service) Enabled(ctx context.Context, key string) (bool, error) {
	d, err := lookup(key)
	if err != nil {
		return false, err
	}
	r, err := s.st.get(ctx, d)
	return r.enabled, err
}

// Config returns the stored config of a service (secrets included: for the
// owning capability only, never for the API).
func (s *Service) Config(ctx context.Context, key string) (json.RawMessage, error) {
	d, err := lookup(key)
	if err != nil {
		return nil, err
	}
	r, err := s.st.get(ctx, d)
	return r.config, err
}

// SetConfig replaces the config of a service.
func (s *Service) SetConfig(ctx context.Context, key string, cfg any) error {
	d, err := lookup(key)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("encode config of %s: %w", key, err)
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		r, err := s.st.lock(ctx, d)
		if err != nil {
			return err
		}
		recordConfig(ctx, d.key, r.config, raw)
		return s.st.putConfig(ctx, d.key, raw)
	})
}

// UpdateConfig replaces the config of a service with fn(stored config), the
// row locked in between: a concurrent UpdateConfig or Update of the same
// service waits instead of being overwritten by a stale read. An error of fn
// aborts without change.
func (s *Service) UpdateConfig(ctx context.Context, key string, fn func(old json.RawMessage) (any, error)) error {
	d, err := lookup(key)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		r, err := s.st.lock(ctx, d)
		if err != nil {
			return err
		}
		next, err := fn(r.config)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(next)
		if err != nil {
			return fmt.Errorf("encode config of %s: %w", key, err)
		}
		recordConfig(ctx, d.key, r.config, raw)
		return s.st.putConfig(ctx, d.key, raw)
	})
}

// recordConfig writes a settings change to the audit log; secret values
// (passwords, tokens) are masked by the audit log, never stored.
func recordConfig(ctx context.Context, key string, before, after json.RawMessage) {
	var b, a any
	_ = json.Unmarshal(before, &b)
	_ = json.Unmarshal(after, &a)
	audit.Record(ctx, audit.Entry{Action: audit.SettingsSave, ResourceType: "service", ResourceID: key, Before: b, After: a})
}

// ConfigInt reads an integer field of a service's config, def when unset.
func (s *Service) ConfigInt(ctx context.Context, key, field string, def int) int {
	raw, err := s.Config(ctx, key)
	if err != nil {
		return def
	}
	m := map[string]any{}
	if json.Unmarshal(raw, &m) != nil {
		return def
	}
	if v, ok := m[field].(float64); ok && v > 0 {
		return int(v)
	}
	return def
}
