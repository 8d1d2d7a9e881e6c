package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/mail"
	"coreportal/internal/services"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// Service holds the receiver rules and the outbox dispatcher.
type Service struct {
	db    *store.DB
	st    *evStore
	q     *jobs.Queue
	mail  *mail.Service
	users *users.Service

	// CanEditList is the wiring point for the access control engine: when set,
	// creating a receiver scoped to a list also needs edit on that list (it
	// returns fault NotFound / Forbidden itself or false). While nil only the
	// administrator role is checked.
	CanEditList func(ctx context.Context, listID string) (bool, error)
	// Poll is the dispatcher's idle wait (default 500ms).
	Poll time.Duration
	// Batch is the number of outbox events dispatched per transaction.
	Batch int

	hooks *Webhooks

	known map[string]bool
	wake  chan struct{}
	now   func() time.Time
}

// New builds the service and registers the notifications.sendEventEmail handler.
func New(db *store.DB, q *jobs.Queue, m *mail.Service, u *users.Service) *Service {
	s := &Service{db: db, st: &evStore{db: db}, q: q, mail: m, users: u, Poll: 500 * time.Millisecond, Batch: 100,
		known: catalogue(), wake: make(chan struct{}, 1), now: time.Now}
	q.Handle(JobSendEventEmail, s.handleEmail)
	return s
}

// AllowEvent adds an event name receivers may subscribe to (other capabilities' events).
func (s *Service) AllowEvent(name string) { s.known[name] = true }

// Create registers a receiver (administrators; plus edit on the list when scoped).
func (s *Service) Create(ctx context.Context, in NewEventReceiver) (*EventReceiver, error) {
	p, err := auth.RequireAdmin(ctx)
	if err != nil {
		return nil, err
	}
	r := &EventReceiver{ID: uuid.NewString(), EventName: strings.TrimSpace(in.EventName), Title: strings.TrimSpace(in.Title),
		ServiceKey: strings.TrimSpace(in.ServiceKey), JobType: strings.TrimSpace(in.JobType), Config: in.Config, CreatedAt: s.now().UTC()}
	if !s.known[r.EventName] {
		return nil, fault.Validation("eventName", "unknown event %q (see the event catalogue of POST /event-receivers)", r.EventName)
	}
	if r.Title == "" {
		return nil, fault.Validation("title", "title is required")
	}
	if r.Config == nil {
		r.Config = map[string]any{}
	}
	if v, ok := r.Config["listId"]; ok && v != nil {
		// stored and matched against outbox.scope_id (lower-case) as text:
		// an upper-case id would never match, so store the canonical form
		raw, _ := v.(string)
		id, ok := store.CanonicalUUID(raw)
		if !ok {
			return nil, fault.Validation("config.listId", "config.listId must be a list UUID (8-4-4-4-12 hex digits)")
		}
		r.Config["listId"] = id
		r.ListID = &id
	}
	switch r.JobType {
	case JobSendEventEmail:
		if r.ServiceKey != services.KeyNotifications {
			return nil, fault.Validation("serviceKey", "%s belongs to service notifications", JobSendEventEmail)
		}
		if _, err := emailConfig(r.Config); err != nil {
			return nil, err
		}
	case JobWebhookPost:
		if r.ServiceKey != services.KeyNotifications {
			return nil, fault.Validation("serviceKey", "%s belongs to service notifications", JobWebhookPost)
		}
		cfg, err := s.webhookConfig(r.Config, true)
		if err != nil {
			return nil, err
		}
		r.Config["url"] = cfg.URL
	default:
		return nil, fault.Validation("jobType", "unknown receiver job type %q (%s, %s)", r.JobType, JobSendEventEmail, JobWebhookPost)
	}
	if r.ListID != nil && s.CanEditList != nil {
		ok, err := s.CanEditList(ctx, *r.ListID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fault.Forbidden("edit on the list is required to add its event receivers")
		}
	}
	r.CreatedBy = &p.UserID
	if p.IsSystem {
		r.CreatedBy = nil
	}
	if err := s.st.insert(ctx, r); err != nil {
		return nil, err
	}
	// the config may hold secrets (a webhook's): the audit keeps what identifies the receiver
	audit.Record(ctx, audit.Entry{Action: "eventReceiver.create", ResourceType: "event_receiver", ResourceID: r.ID,
		After: map[string]any{"eventName": r.EventName, "title": r.Title, "serviceKey": r.ServiceKey, "jobType": r.JobType, "listId": r.ListID}})
	return present(r), nil
}

type emailCfg struct {
	To            []string
	Subject, Text string
}

func emailConfig(c map[string]any) (emailCfg, error) {
	var out emailCfg
	switch to := c["to"].(type) {
	case string:
		out.To = []string{strings.TrimSpace(to)}
	case []any:
		for _, v := range to {
			s, ok := v.(string)
			if !ok {
				return out, fault.Validation("config.to", "config.to must be an address or a list of addresses")
			}
			out.To = append(out.To, strings.TrimSpace(s))
		}
	}
	subject, _ := c["subject"].(string)
	text, _ := c["text"].(string)
	out.Subject, out.Text = subject, text
	if len(out.To) == 0 {
		return out, fault.Validation("config.to", "config.to is required")
	}
	if strings.TrimSpace(out.Subject) == "" {
		return out, fault.Validation("config.subject", "config.subject is required")
	}
	if strings.TrimSpace(out.Text) == "" {
		return out, fault.Validation("config.text", "config.text is required")
	}
	if err := (mail.Message{To: out.To, Subject: out.Subject, Text: out.Text}).Validate(); err != nil {
		if fe, ok := fault.As(err); ok {
			return out, fault.Validation("config."+fmt.Sprint(fe.Details["field"]), "%s", fe.Message)
		}
		return out, err
	}
	return out, nil
}

// List returns the receivers, of one list when listID is set.
func (s *Service) List(ctx context.Context, listID string) ([]*EventReceiver, error) {
	if _, err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	if listID != "" {
		id, ok := store.CanonicalUUID(listID)
		if !ok {
			return nil, fault.Validation("listId", "listId must be a UUID (8-4-4-4-12 hex digits)")
		}
		listID = id
	}
	rs, err := s.st.list(ctx, listID)
	for i := range rs {
		rs[i] = present(rs[i])
	}
	return rs, err
}

// Delete removes a receiver.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := auth.RequireAdmin(ctx); err != nil {
		return err
	}
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return fault.Validation("id", "id must be a UUID (8-4-4-4-12 hex digits)")
	}
	old, err := s.st.get(ctx, id)
	if store.IsNotFound(err) {
		return fault.NotFound("event receiver")
	} else if err != nil {
		return err
	}
	if err := s.st.delete(ctx, id); err != nil {
		return err
	}
	audit.Record(ctx, audit.Entry{Action: "eventReceiver.delete", ResourceType: "event_receiver", ResourceID: id,
		Before: map[string]any{"eventName": old.EventName, "title": old.Title, "serviceKey": old.ServiceKey, "jobType": old.JobType, "listId": old.ListID}})
	if s.hooks != nil {
		return s.hooks.Log.DeleteReceiver(ctx, id)
	}
	return nil
}

// Wake makes the dispatcher look at the outbox now (call after commit).
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Dispatch delivers the outbox until ctx ends (run it in worker processes).
func (s *Service) Dispatch(ctx context.Context) {
	var lastPurge time.Time
	for ctx.Err() == nil {
		if time.Since(lastPurge) > time.Hour {
			if n, err := s.st.purgeDispatched(ctx); err != nil {
				store.LogLoopError(ctx, "purge dispatched outbox events", err)
			} else if n > 0 {
				slog.InfoContext(ctx, "dispatched outbox events purged", "count", n)
			}
			s.purgeWebhookLog(ctx)
			lastPurge = time.Now()
		}
		n, err := s.DispatchOnce(ctx)
		store.LogLoopError(ctx, "dispatch outbox", err)
		if n > 0 {
			continue
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-time.After(s.Poll):
		}
	}
}

// DispatchOnce turns one batch of committed outbox events into the jobs of
// their receivers, in the same transaction that deletes them (the jobs carry
// what delivery needs, so the outbox holds only undelivered events): an
// event is delivered at least once (exactly once unless the database loses a
// commit), and the jobs of one receiver and resource run in event order.
func (s *Service) DispatchOnce(ctx context.Context) (int, error) {
	if ok, err := s.st.anyPending(ctx); err != nil || !ok {
		return 0, err
	}
	var n int
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		ok, err := s.st.lockDispatch(ctx)
		if err != nil || !ok {
			return err
		}
		evs, err := s.st.pending(ctx, s.Batch)
		if err != nil || len(evs) == 0 {
			return err
		}
		ids := make([]int64, 0, len(evs))
		for _, e := range evs {
			if err := s.fanOut(ctx, e); err != nil {
				return err
			}
			ids = append(ids, e.ID)
		}
		n = len(evs)
		return s.st.deleteDispatched(ctx, ids)
	})
	return n, err
}

func (s *Service) fanOut(ctx context.Context, e event) error {
	rs, err := s.st.matching(ctx, e.Name, e.ScopeID)
	if err != nil || len(rs) == 0 {
		return err
	}
	login := ""
	if e.ActorID != "" && s.users != nil {
		if u, err := s.users.Get(ctx, e.ActorID); err == nil {
			login = u.Login
		}
	}
	for _, r := range rs {
		if r.JobType == JobWebhookPost && s.hooks != nil {
			if err := s.enqueueWebhook(ctx, r, e); err != nil {
				return err
			}
			continue
		}
		if r.JobType != JobSendEventEmail {
			continue
		}
		cfg, err := emailConfig(r.Config)
		if err != nil {
			slog.WarnContext(ctx, "event receiver skipped: invalid config", "receiverId", r.ID, "err", err)
			continue
		}
		p := EmailPayload{ReceiverID: r.ID, EventID: e.ID, EventName: e.Name, UserID: e.ActorID, UserLogin: login,
			ResourceType: e.ResourceType, ResourceID: e.ResourceID, ListID: e.ScopeID, Details: e.Payload,
			To: cfg.To, Subject: cfg.Subject, Text: cfg.Text, OccurredAt: e.CreatedAt.UTC()}
		key := r.ID + "|" + e.ResourceType + "|" + e.ResourceID
		if _, err := s.q.Enqueue(ctx, JobSendEventEmail, p, jobs.Ordered(key, e.ID)); err != nil {
			return err
		}
	}
	return nil
}

// Substitute fills the placeholders of SPEC.md Events 3.
func (p EmailPayload) Substitute(tmpl string) string {
	details := string(p.Details)
	var compact bytes.Buffer
	if err := json.Compact(&compact, p.Details); err == nil {
		details = compact.String()
	}
	return strings.NewReplacer("{{eventName}}", p.EventName, "{{userLogin}}", p.UserLogin, "{{userId}}", p.UserID,
		"{{resourceType}}", p.ResourceType, "{{resourceId}}", p.ResourceID, "{{details}}", details).Replace(tmpl)
}

func (s *Service) handleEmail(ctx context.Context, j *jobs.Job) (any, error) {
	var p EmailPayload
	if err := j.Decode(&p); err != nil {
		return nil, jobs.Permanent(fmt.Errorf("decode payload: %w", err))
	}
	m := mail.Message{To: p.To, Subject: mail.OneLine(p.Substitute(p.Subject)), Text: p.Substitute(p.Text)}
	if err := s.mail.Deliver(ctx, m); err != nil {
		return nil, err
	}
	return map[string]any{"sent": true, "recipients": len(p.To), "eventId": p.EventID}, nil
}
