package applog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"coreportal/internal/store"
)

// Entry is one application log record.
type Entry struct {
	ID            int64          `json:"id"`
	At            time.Time      `json:"at"`
	Level         string         `json:"level" enum:"debug,info,warn,error"`
	Process       string         `json:"process" enum:"api,worker"`
	Instance      string         `json:"instance"`
	Category      string         `json:"category"`
	Message       string         `json:"message"`
	CorrelationID string         `json:"correlationId,omitempty"`
	JobID         string         `json:"jobId,omitempty"`
	Attrs         map[string]any `json:"attrs"`
}

// Tee copies log records into a bounded in-memory queue that a writer
// (Run) drains into the database in batches. Handle never waits: when the
// queue is full the record is dropped and counted.
type Tee struct {
	queue    chan Entry
	settings atomic.Pointer[Settings]
	process  string
	instance string

	accepted, dropped, written, failed atomic.Int64
}

// QueueSize is the capacity of the tee's queue.
const QueueSize = 8192

// NewTee builds a tee for a process whose records default to process
// ("api" or "worker"); instance names this process in the records.
func NewTee(process, instance string) *Tee {
	t := &Tee{queue: make(chan Entry, QueueSize), process: process, instance: instance}
	d := DefaultSettings()
	t.settings.Store(&d)
	return t
}

// Use applies new settings (level, categories, redaction) at once.
func (t *Tee) Use(s Settings) { t.settings.Store(&s) }

// Settings returns the settings in force.
func (t *Tee) Settings() Settings { return *t.settings.Load() }

// Stats are the tee's counters since the process started.
type Stats struct {
	Instance string `json:"instance"`
	Queued   int    `json:"queued" doc:"records waiting to be written"`
	Capacity int    `json:"capacity"`
	Accepted int64  `json:"accepted"`
	Dropped  int64  `json:"dropped" doc:"records dropped because the queue was full"`
	Written  int64  `json:"written"`
	Failed   int64  `json:"failed" doc:"records lost to failed database writes"`
}

// Stats returns the counters.
func (t *Tee) Stats() Stats {
	if t == nil {
		return Stats{}
	}
	return Stats{Instance: t.instance, Queued: len(t.queue), Capacity: cap(t.queue), Accepted: t.accepted.Load(),
		Dropped: t.dropped.Load(), Written: t.written.Load(), Failed: t.failed.Load()}
}

func (t *Tee) wants(l slog.Level) bool {
	return t != nil && l >= t.settings.Load().level()
}

func (t *Tee) offer(ctx context.Context, r slog.Record, correlation string, pre []slog.Attr, prefix string) {
	set := t.settings.Load()
	process, _ := ctx.Value(processKey{}).(string)
	jobID, _ := ctx.Value(jobKey{}).(string)
	category := ""
	scan := func(a slog.Attr) bool {
		switch a.Key {
		case "category":
			category = a.Value.String()
		case "jobId":
			if jobID == "" {
				jobID = a.Value.String()
			}
		}
		return true
	}
	for _, a := range pre {
		scan(a)
	}
	r.Attrs(scan)
	if category == "" {
		switch {
		case r.Message == "http":
			category = "http"
		case jobID != "":
			category = "job"
		default:
			category = "app"
		}
	}
	if len(set.IncludeCategories) > 0 {
		if !contains(set.IncludeCategories, category) {
			return
		}
	} else if category == "http" && r.Level < slog.LevelWarn {
		// Request lines are high-volume: stored only when includeCategories
		// names http (failed requests, warn and above, always are).
		return
	}
	e := Entry{At: r.Time.UTC(), Level: LevelName(r.Level), Process: t.process, Instance: t.instance, Category: category,
		Message: r.Message, CorrelationID: correlation, JobID: jobID, Attrs: make(map[string]any, len(pre)+r.NumAttrs())}
	if e.At.IsZero() {
		e.At = time.Now().UTC()
	}
	if process != "" {
		e.Process = process
	}
	if jobID != "" {
		e.Process = "worker"
	}
	for _, a := range pre {
		putAttr(e.Attrs, "", a)
	}
	r.Attrs(func(a slog.Attr) bool { putAttr(e.Attrs, prefix, a); return true })
	delete(e.Attrs, "category")
	select {
	case t.queue <- e:
		t.accepted.Add(1)
	default:
		t.dropped.Add(1)
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}

func putAttr(m map[string]any, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p = prefix + a.Key + "."
		}
		for _, g := range v.Group() {
			putAttr(m, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	m[prefix+a.Key] = plain(v)
}

// plain turns a slog value into something JSON encodes faithfully.
func plain(v slog.Value) any {
	switch v.Kind() {
	case slog.KindString:
		return v.String()
	case slog.KindInt64:
		return v.Int64()
	case slog.KindUint64:
		return v.Uint64()
	case slog.KindFloat64:
		return v.Float64()
	case slog.KindBool:
		return v.Bool()
	case slog.KindDuration:
		return v.Duration().String()
	case slog.KindTime:
		return v.Time().UTC().Format(time.RFC3339Nano)
	}
	switch x := v.Any().(type) {
	case error:
		return x.Error()
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprintf("%v", x)
	}
}

// Run drains the queue into write in batches (up to 256 records, or what
// arrived within 250 ms) until ctx ends, then flushes what is left.
// Records are redacted here, off the request path, when the settings say so.
func (t *Tee) Run(ctx context.Context, write func(ctx context.Context, batch []Entry) error) {
	quiet := Quiet(context.WithoutCancel(ctx))
	batch := make([]Entry, 0, 256)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if t.settings.Load().RedactEnabled {
			for i := range batch {
				redactEntry(&batch[i])
			}
		}
		wctx, cancel := context.WithTimeout(quiet, 10*time.Second)
		err := write(wctx, batch)
		cancel()
		if err != nil {
			t.failed.Add(int64(len(batch)))
			// a database outage is logged once by the store, not every 250 ms here
			store.LogLoopError(quiet, "application log: batch not written", err, "category", "applog", "records", len(batch))
		} else {
			t.written.Add(int64(len(batch)))
		}
		batch = batch[:0]
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case e := <-t.queue:
			batch = append(batch, e)
			if len(batch) == cap(batch) {
				flush()
			}
		case <-tick.C:
			flush()
		case <-ctx.Done():
			for {
				select {
				case e := <-t.queue:
					batch = append(batch, e)
					if len(batch) == cap(batch) {
						flush()
					}
				default:
					flush()
					return
				}
			}
		}
	}
}

func redactEntry(e *Entry) {
	e.Message = RedactText(e.Message)
	e.Attrs = RedactValue(e.Attrs).(map[string]any)
}
