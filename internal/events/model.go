// Package events holds the event receivers (SPEC.md, Events) and the outbox
// dispatcher that turns committed domain events into the receivers' jobs.
package events

import (
	"encoding/json"
	"time"
)

// Item event names of SPEC.md.
const (
	ItemCreated  = "listItem.created"
	ItemUpdated  = "listItem.updated"
	ItemDeleted  = "listItem.deleted"
	ItemRestored = "listItem.restored"
)

// JobSendEventEmail is the receiver job type that mails on an event.
const JobSendEventEmail = "notifications.sendEventEmail"

// EventReceiver is a registered event receiver.
type EventReceiver struct {
	ID         string         `json:"id" format:"uuid"`
	EventName  string         `json:"eventName"`
	Title      string         `json:"title"`
	ServiceKey string         `json:"serviceKey"`
	JobType    string         `json:"jobType"`
	Config     map[string]any `json:"config"`
	ListID     *string        `json:"listId" doc:"config.listId: the list the receiver is scoped to, null for every list"`
	CreatedBy  *string        `json:"createdBy"`
	CreatedAt  time.Time      `json:"createdAt"`
}

// NewEventReceiver is the body of POST /event-receivers.
type NewEventReceiver struct {
	EventName  string         `json:"eventName" maxLength:"100" doc:"one of the event catalogue (see the operation's description), e.g. listItem.created"`
	Title      string         `json:"title" maxLength:"200"`
	ServiceKey string         `json:"serviceKey" maxLength:"50" doc:"notifications for notifications.sendEventEmail"`
	JobType    string         `json:"jobType" maxLength:"100" doc:"notifications.sendEventEmail"`
	Config     map[string]any `json:"config" doc:"notifications.sendEventEmail: to (address or list), subject, text with {{eventName}} {{userLogin}} {{userId}} {{resourceType}} {{resourceId}} {{details}}; optional listId"`
}

// event is one outbox row.
type event struct {
	ID           int64
	Name         string
	ResourceType string
	ResourceID   string
	ScopeID      string
	ActorID      string
	Payload      json.RawMessage
	CreatedAt    time.Time
}

// EmailPayload is the payload of a notifications.sendEventEmail job: the
// receiver's mail template and the event it fires for.
type EmailPayload struct {
	ReceiverID   string          `json:"receiverId"`
	EventID      int64           `json:"eventId"`
	EventName    string          `json:"eventName"`
	UserID       string          `json:"userId"`
	UserLogin    string          `json:"userLogin"`
	ResourceType string          `json:"resourceType"`
	ResourceID   string          `json:"resourceId"`
	ListID       string          `json:"listId,omitempty"`
	Details      json.RawMessage `json:"details"`
	To           []string        `json:"to"`
	Subject      string          `json:"subject"`
	Text         string          `json:"text"`
	OccurredAt   time.Time       `json:"occurredAt"`
}

// Catalogue is every event receivers may subscribe to (documented on POST /event-receivers).
var Catalogue = []string{ItemCreated, ItemUpdated, ItemDeleted, ItemRestored,
	"file.created", "file.updated", "file.deleted", "file.restored",
	"page.created", "page.updated", "page.deleted", "page.restored",
	"survey.created", "survey.published", "survey.closed", "survey.reopened", "survey.answered", "survey.deleted", "survey.restored",
	"group.memberAdded", "group.memberRemoved"}

func catalogue() map[string]bool {
	m := make(map[string]bool, len(Catalogue))
	for _, n := range Catalogue {
		m[n] = true
	}
	return m
}
