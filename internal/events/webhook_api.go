package events

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/webhooks"
)

// EventTest is the event name of a test delivery.
const EventTest = "webhook.test"

func (s *Service) webhookReceiver(ctx context.Context, id string) (*EventReceiver, error) {
	if _, err := auth.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "id must be a UUID (8-4-4-4-12 hex digits)")
	}
	r, err := s.st.get(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("event receiver")
	} else if err != nil {
		return nil, err
	}
	if r.JobType != JobWebhookPost || s.hooks == nil {
		return nil, fault.Validation("id", "the receiver is not a %s receiver", JobWebhookPost)
	}
	return r, nil
}

// Deliveries returns a webhook receiver's delivery log, newest first (administrators).
func (s *Service) Deliveries(ctx context.Context, id string, page, limit int) ([]webhooks.Attempt, int, error) {
	r, err := s.webhookReceiver(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	return s.hooks.Log.List(ctx, r.ID, limit, (page-1)*limit)
}

// TestDelivery sends one webhook.test event to the receiver now, without
// retries, logs it and returns the attempt (administrators).
func (s *Service) TestDelivery(ctx context.Context, id string) (*webhooks.Attempt, error) {
	r, err := s.webhookReceiver(ctx, id)
	if err != nil {
		return nil, err
	}
	cfg, err := s.webhookConfig(r.Config, false)
	if err != nil {
		return nil, err
	}
	p := auth.FromContext(ctx)
	data, _ := json.Marshal(map[string]any{"test": true, "receiverTitle": r.Title, "subscribedEvent": r.EventName})
	wp := WebhookPayload{ReceiverID: r.ID, DeliveryID: uuid.NewString(), EventName: EventTest, UserID: p.UserID,
		ResourceType: "event_receiver", ResourceID: r.ID, Details: data, OccurredAt: time.Now().UTC()}
	body, err := json.Marshal(s.delivery(ctx, r.ID, wp))
	if err != nil {
		return nil, err
	}
	res := s.hooks.Sender.Send(ctx, webhooks.Request{URL: cfg.URL, Secret: cfg.Secret, DeliveryID: wp.DeliveryID, Event: EventTest,
		Attempt: 1, Body: body})
	a := &webhooks.Attempt{ReceiverID: r.ID, DeliveryID: wp.DeliveryID, EventName: EventTest, Attempt: 1}
	_, _ = s.record(ctx, a, res, nil)
	return a, nil
}
