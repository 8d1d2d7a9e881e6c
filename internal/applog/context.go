// Package applog is the application log: the correlation id of a request or
// job carried through context into every log line, and a tee of the process
// log into the database (bounded queue, batched writes, never blocking the
// caller; see Tee) that administrators read at /admin/logs.
package applog

import (
	"context"
	"log/slog"
)

type correlationKey struct{}
type processKey struct{}
type jobKey struct{}
type quietKey struct{}

// WithCorrelation binds a correlation id (request id or job id) to ctx.
func WithCorrelation(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// Correlation returns the id bound to ctx, or "".
func Correlation(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// WithProcess marks ctx as running in the given process role ("worker" for
// background loops and jobs); records logged with it carry that process.
func WithProcess(ctx context.Context, process string) context.Context {
	return context.WithValue(ctx, processKey{}, process)
}

// WithJob binds the id of the running job to ctx.
func WithJob(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, jobKey{}, id)
}

// Quiet marks ctx so that its records are not written to the database (the
// log writer's own errors, which would otherwise feed themselves).
func Quiet(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

// Handler adds correlation_id to every record logged with a context and,
// when Tee is set, copies records into the application log queue.
type Handler struct {
	slog.Handler
	Tee *Tee
	// attrs and prefix mirror WithAttrs / WithGroup for the tee.
	attrs  []slog.Attr
	prefix string
}

// Enabled is true when the process log or the application log wants the level.
func (h Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, l) || h.Tee.wants(l)
}

func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	id := Correlation(ctx)
	if h.Tee.wants(r.Level) && ctx.Value(quietKey{}) == nil {
		h.Tee.offer(ctx, r, id, h.attrs, h.prefix)
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	if id != "" {
		r.AddAttrs(slog.String("correlation_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := h
	c.Handler = h.Handler.WithAttrs(attrs)
	if h.Tee != nil {
		c.attrs = make([]slog.Attr, 0, len(h.attrs)+len(attrs))
		c.attrs = append(c.attrs, h.attrs...)
		for _, a := range attrs {
			c.attrs = append(c.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
		}
	}
	return c
}

func (h Handler) WithGroup(name string) slog.Handler {
	c := h
	c.Handler = h.Handler.WithGroup(name)
	if name != "" {
		c.prefix = h.prefix + name + "."
	}
	return c
}
