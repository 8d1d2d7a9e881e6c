// Package jobs is the one background-work queue: rows in the jobs table,
// claimed by workers of any process (FOR UPDATE SKIP LOCKED on PostgreSQL,
// the single writer on SQLite), retried with exponential backoff and
// reclaimed when a worker dies mid-job.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Job statuses (CONTRACT.md, Job).
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
)

// Job is one unit of background work as the API shows it.
type Job struct {
	ID          string          `json:"id" format:"uuid"`
	Type        string          `json:"type"`
	Status      string          `json:"status" enum:"pending,running,succeeded,failed"`
	Payload     json.RawMessage `json:"payload"`
	Result      json.RawMessage `json:"result"`
	Error       string          `json:"error"`
	Attempts    int             `json:"attempts"`
	MaxAttempts int             `json:"maxAttempts"`
	RunAt       time.Time       `json:"runAt" doc:"earliest time of the next attempt"`
	CreatedAt   time.Time       `json:"createdAt"`
	StartedAt   *time.Time      `json:"startedAt"`
	CompletedAt *time.Time      `json:"completedAt"`
	// ActorID is the user the job acts for (empty: core-system).
	ActorID string `json:"-"`
}

// Decode unmarshals the payload into v.
func (j *Job) Decode(v any) error { return json.Unmarshal(j.Payload, v) }

// HandlerFunc runs one job; its result is stored as JSON.
type HandlerFunc func(ctx context.Context, job *Job) (result any, err error)

// Option tunes one Enqueue.
type Option func(*enqueueOpts)

type enqueueOpts struct {
	maxAttempts int
	runAt       time.Time
	actorID     string
	orderKey    string
	orderSeq    int64
}

// MaxAttempts sets how many times the job is tried before it fails (default 5).
func MaxAttempts(n int) Option { return func(o *enqueueOpts) { o.maxAttempts = max(1, n) } }

// RunAt delays the first attempt.
func RunAt(t time.Time) Option { return func(o *enqueueOpts) { o.runAt = t.UTC() } }

// AsUser runs the handler with that user's principal instead of core-system.
func AsUser(userID string) Option { return func(o *enqueueOpts) { o.actorID = userID } }

// Ordered makes jobs sharing key run one after another in seq order: a job
// is not claimed while an earlier job of the key is pending or running.
func Ordered(key string, seq int64) Option {
	return func(o *enqueueOpts) { o.orderKey, o.orderSeq = key, seq }
}

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so that the job fails at once, without retries.
func Permanent(err error) error { return permanent{err} }

func isPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

// retryIn asks for the next attempt after a delay of the handler's choosing.
type retryIn struct {
	err   error
	delay time.Duration
}

func (r retryIn) Error() string { return r.err.Error() }
func (r retryIn) Unwrap() error { return r.err }

// RetryIn wraps err so that, when attempts remain, the job is tried again
// after d instead of the queue's own backoff (webhooks keep their own
// schedule, configurable apart from the queue's).
func RetryIn(d time.Duration, err error) error { return retryIn{err: err, delay: d} }

func retryDelay(err error) (time.Duration, bool) {
	var r retryIn
	if errors.As(err, &r) && r.delay > 0 {
		return r.delay, true
	}
	return 0, false
}
