package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
	"coreportal/internal/webhooks"
)

// JobWebhookPost is the receiver job type that posts the event to a URL.
const JobWebhookPost = "webhooks.post"

// SecretMask stands for a stored secret in answers (like the SMTP and LDAP passwords).
const SecretMask = "********"

// webhookAttempts is how often one event is tried before its delivery fails.
const webhookAttempts = 6

// Webhooks is what delivery needs; set by UseWebhooks in the wiring.
type Webhooks struct {
	Sender *webhooks.Sender
	Log    *webhooks.Log
	// Backoff is the delay before the second attempt; each further one
	// doubles it (CORE_WEBHOOK_BACKOFF, default 10s: 10s, 20s, 40s, 80s, 160s).
	Backoff time.Duration
	// CanView reports whether p may view the event's resource (acl); a
	// payload is only sent when the receiver's creator may.
	CanView func(ctx context.Context, p *auth.Principal, resourceType, resourceID, scopeID string) (bool, error)
}

// UseWebhooks enables the webhooks.post job type.
func (s *Service) UseWebhooks(w *Webhooks) {
	if w.Backoff <= 0 {
		w.Backoff = 10 * time.Second
	}
	s.hooks = w
	s.q.Handle(JobWebhookPost, s.handleWebhook)
}

// WebhookPayload is the payload of a webhooks.post job. It names the
// receiver rather than carrying its secret: jobs are readable through /jobs.
type WebhookPayload struct {
	ReceiverID   string          `json:"receiverId"`
	DeliveryID   string          `json:"deliveryId"`
	EventID      int64           `json:"eventId"`
	EventName    string          `json:"eventName"`
	UserID       string          `json:"userId,omitempty"`
	ResourceType string          `json:"resourceType"`
	ResourceID   string          `json:"resourceId"`
	ScopeID      string          `json:"scopeId,omitempty"`
	Details      json.RawMessage `json:"details"`
	OccurredAt   time.Time       `json:"occurredAt"`
}

// Delivery is the JSON body a webhook receiver gets (documented on POST /event-receivers).
type Delivery struct {
	ID         string          `json:"id"`
	Event      string          `json:"event"`
	OccurredAt time.Time       `json:"occurredAt"`
	Actor      *DeliveryActor  `json:"actor"`
	Resource   DeliveryTarget  `json:"resource"`
	Data       json.RawMessage `json:"data"`
	ReceiverID string          `json:"receiverId"`
}

// DeliveryActor is who caused the event.
type DeliveryActor struct {
	ID    string `json:"id"`
	Login string `json:"login"`
}

// DeliveryTarget names the resource of the event.
type DeliveryTarget struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	ScopeID string `json:"scopeId,omitempty"`
}

type webhookCfg struct{ URL, Secret string }

func lookupHost(host string) ([]netip.Addr, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// webhookConfig validates config.url and config.secret.
func (s *Service) webhookConfig(c map[string]any, checkTarget bool) (webhookCfg, error) {
	var out webhookCfg
	out.URL, _ = c["url"].(string)
	out.Secret, _ = c["secret"].(string)
	if s.hooks == nil {
		return out, fault.Validation("jobType", "webhooks are not available in this process")
	}
	if strings.TrimSpace(out.URL) == "" || len(out.URL) > 2000 {
		return out, fault.Validation("config.url", "config.url is required (an http or https URL of at most 2000 characters)")
	}
	if checkTarget {
		u, err := s.hooks.Sender.Hosts().CheckURL(out.URL, lookupHost)
		if errors.Is(err, webhooks.ErrRefusedAddress) {
			return out, fault.Validation("config.url", "config.url points at a private, loopback or link-local address; an administrator may allow its host in CORE_WEBHOOK_ALLOWED_HOSTS")
		} else if err != nil {
			return out, fault.Validation("config.url", "config.%s", err.Error())
		}
		out.URL = u.String()
	}
	if len(out.Secret) < 16 || len(out.Secret) > 256 || out.Secret == SecretMask {
		return out, fault.Validation("config.secret", "config.secret is required: 16 to 256 characters, used to sign each delivery")
	}
	return out, nil
}

// present hides secrets of a receiver's config in answers.
func present(r *EventReceiver) *EventReceiver {
	if r == nil || r.JobType != JobWebhookPost {
		return r
	}
	c := *r
	c.Config = make(map[string]any, len(r.Config)+1)
	for k, v := range r.Config {
		c.Config[k] = v
	}
	_, has := c.Config["secret"]
	if has {
		c.Config["secret"] = SecretMask
	}
	c.Config["hasSecret"] = has
	return &c
}

func (s *Service) enqueueWebhook(ctx context.Context, r *EventReceiver, e event) error {
	p := WebhookPayload{ReceiverID: r.ID, DeliveryID: uuid.NewString(), EventID: e.ID, EventName: e.Name, UserID: e.ActorID,
		ResourceType: e.ResourceType, ResourceID: e.ResourceID, ScopeID: e.ScopeID, Details: e.Payload, OccurredAt: e.CreatedAt.UTC()}
	opts := []jobs.Option{jobs.Ordered(r.ID+"|"+e.ResourceType+"|"+e.ResourceID, e.ID), jobs.MaxAttempts(webhookAttempts)}
	if r.CreatedBy != nil {
		opts = append(opts, jobs.AsUser(*r.CreatedBy))
	}
	_, err := s.q.Enqueue(ctx, JobWebhookPost, p, opts...)
	return err
}

func (s *Service) handleWebhook(ctx context.Context, j *jobs.Job) (any, error) {
	var p WebhookPayload
	if err := j.Decode(&p); err != nil {
		return nil, jobs.Permanent(fmt.Errorf("decode payload: %w", err))
	}
	r, err := s.st.get(ctx, p.ReceiverID)
	if store.IsNotFound(err) {
		return map[string]any{"skipped": "receiver removed"}, nil
	} else if err != nil {
		return nil, err
	}
	cfg, err := s.webhookConfig(r.Config, false)
	if err != nil {
		return nil, jobs.Permanent(err)
	}
	log := &webhooks.Attempt{ReceiverID: r.ID, DeliveryID: p.DeliveryID, EventName: p.EventName, Attempt: j.Attempts}
	ok, err := s.hooks.CanView(ctx, auth.FromContext(ctx), p.ResourceType, p.ResourceID, p.ScopeID)
	if err != nil {
		return nil, err
	}
	if !ok {
		log.Status, log.Error = webhooks.StatusWithheld, "the receiver's creator may not view the resource; nothing was sent"
		return map[string]any{"withheld": true}, s.hooks.Log.Add(ctx, log)
	}
	body, err := json.Marshal(s.delivery(ctx, r.ID, p))
	if err != nil {
		return nil, jobs.Permanent(err)
	}
	res := s.hooks.Sender.Send(ctx, webhooks.Request{URL: cfg.URL, Secret: cfg.Secret, DeliveryID: p.DeliveryID, Event: p.EventName,
		Attempt: j.Attempts, Body: body})
	return s.record(ctx, log, res, j)
}

// record logs an attempt and tells the queue what comes next.
func (s *Service) record(ctx context.Context, log *webhooks.Attempt, res webhooks.Result, j *jobs.Job) (any, error) {
	log.DurationMs = res.Duration.Milliseconds()
	log.AnswerExcerpt = res.Excerpt
	if res.HTTPStatus != 0 {
		log.HTTPStatus = &res.HTTPStatus
	}
	var out error
	switch {
	case res.Err == nil:
		log.Status = webhooks.StatusSucceeded
	case errors.Is(res.Err, webhooks.ErrRefusedAddress):
		log.Status, log.Error = webhooks.StatusRefused, res.Err.Error()
		out = jobs.Permanent(res.Err)
	case j != nil && j.Attempts < j.MaxAttempts:
		d := s.hooks.Backoff << min(j.Attempts-1, 16)
		next := time.Now().UTC().Add(d)
		log.Status, log.Error, log.NextRetryAt = webhooks.StatusRetrying, res.Err.Error(), &next
		out = jobs.RetryIn(d, res.Err)
	default:
		log.Status, log.Error = webhooks.StatusFailed, res.Err.Error()
		out = res.Err
	}
	if err := s.hooks.Log.Add(ctx, log); err != nil {
		return nil, err
	}
	if out != nil {
		return nil, out
	}
	return map[string]any{"delivered": true, "httpStatus": res.HTTPStatus, "deliveryId": log.DeliveryID}, nil
}

func (s *Service) delivery(ctx context.Context, receiverID string, p WebhookPayload) Delivery {
	d := Delivery{ID: p.DeliveryID, Event: p.EventName, OccurredAt: p.OccurredAt, ReceiverID: receiverID,
		Resource: DeliveryTarget{Type: p.ResourceType, ID: p.ResourceID, ScopeID: p.ScopeID}, Data: p.Details}
	if len(d.Data) == 0 {
		d.Data = json.RawMessage("null")
	}
	if p.UserID != "" {
		d.Actor = &DeliveryActor{ID: p.UserID}
		if s.users != nil {
			if u, err := s.users.Get(ctx, p.UserID); err == nil {
				d.Actor.Login = u.Login
			}
		}
	}
	return d
}

// webhookLogDays is how long the delivery log keeps an attempt.
const webhookLogDays = 30

func (s *Service) purgeWebhookLog(ctx context.Context) {
	if s.hooks == nil {
		return
	}
	if n, err := s.hooks.Log.Purge(ctx, time.Now().AddDate(0, 0, -webhookLogDays)); err != nil {
		store.LogLoopError(ctx, "purge webhook delivery log", err)
	} else if n > 0 {
		slog.InfoContext(ctx, "webhook delivery log purged", "count", n)
	}
}
