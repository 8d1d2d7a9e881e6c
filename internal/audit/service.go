package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/applog"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Log is the audit log service.
type Log struct {
	st    *auditStore
	actor func(ctx context.Context) Actor
	now   func() time.Time
}

// New builds the audit log. actor tells who is calling (the signed-in user
// and the client address); it is supplied by the wiring so that audit does
// not depend on auth (auth records sign-ins here).
func New(db *store.DB, actor func(ctx context.Context) Actor) *Log {
	if actor == nil {
		actor = func(context.Context) Actor { return Actor{} }
	}
	return &Log{st: &auditStore{db: db}, actor: actor, now: time.Now}
}

// Record writes e (see the package comment).
func (l *Log) Record(ctx context.Context, e Entry) {
	row, err := l.row(ctx, e)
	if err == nil {
		err = l.st.insert(ctx, row)
	}
	if err != nil {
		slog.ErrorContext(ctx, "write audit record", "category", "audit", "action", e.Action, "err", err)
	}
}

func (l *Log) row(ctx context.Context, e Entry) (Row, error) {
	var a Actor
	if e.Actor != nil {
		a = *e.Actor
		if a.Address == "" {
			a.Address = l.actor(ctx).Address
		}
	} else {
		a = l.actor(ctx)
	}
	details := map[string]any{}
	for k, v := range e.Details {
		details[k] = v
	}
	if e.Before != nil {
		details["before"] = e.Before
	}
	if e.After != nil {
		details["after"] = e.After
	}
	// Round-trip through JSON so that structs are stripped of secrets too.
	raw, err := json.Marshal(details)
	if err != nil {
		return Row{}, fmt.Errorf("encode audit details: %w", err)
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return Row{}, fmt.Errorf("decode audit details: %w", err)
	}
	outcome := e.Outcome
	if outcome == "" {
		outcome = "success"
	}
	if _, ok := store.CanonicalUUID(a.ID); !ok {
		a.ID = ""
	}
	return Row{
		ID: uuid.NewString(), At: l.now().UTC(), ActorID: a.ID, ActorLogin: a.Login, ActorAddress: a.Address,
		Action: e.Action, ResourceType: e.ResourceType, ResourceID: e.ResourceID, Outcome: outcome,
		Details: applog.StripSecrets(generic).(map[string]any), CorrelationID: applog.Correlation(ctx),
	}, nil
}

// List returns one page of records, newest first, and the total.
func (l *Log) List(ctx context.Context, f Filter, offset, limit int) ([]Row, int, error) {
	if err := f.check(); err != nil {
		return nil, 0, err
	}
	return l.st.list(ctx, f, offset, limit)
}

// Each calls fn for up to limit records, newest first (exports).
func (l *Log) Each(ctx context.Context, f Filter, limit int, fn func(Row) error) error {
	if err := f.check(); err != nil {
		return err
	}
	return l.st.each(ctx, f, limit, fn)
}

// Recent returns the newest n records (dashboard excerpt).
func (l *Log) Recent(ctx context.Context, n int) ([]Row, error) {
	rows, _, err := l.st.list(ctx, Filter{}, 0, n)
	return rows, err
}

func (f Filter) check() error {
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		return fault.Validation("to", "to must not be before from")
	}
	if f.ResourceType != "" && strings.ContainsAny(f.ResourceType, " \t\n") {
		return fault.Validation("resourceType", "resourceType must be one word")
	}
	return nil
}
