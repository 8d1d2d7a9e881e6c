package events

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves /event-receivers.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	list := web.Op(http.MethodGet, "/event-receivers", "listEventReceivers", "List event receivers, optionally of one list", web.Admin, "events")
	web.Register(api, list, h.list)
	create := web.Op(http.MethodPost, "/event-receivers", "createEventReceiver", "Register an event receiver", web.Admin, "events")
	create.Description += ` A receiver scoped with config.listId also needs edit on the list.
eventName: one of the event catalogue below. jobType notifications.sendEventEmail (serviceKey notifications)
needs config.to (address or list), config.subject and config.text; {{eventName}}, {{userLogin}}, {{userId}}, {{resourceType}},
{{resourceId}} and {{details}} (the JSON snapshot of the item, also for deleted items) are substituted in subject and text.
config.subject is one line: a control character (CR, LF, tab, …) or a line separator in it is refused with 400
VALIDATION_ERROR (field config.subject), and one that a substituted value brings is sent as a space.
Delivery: after the item's transaction commits, each event becomes one job per matching receiver, at least once;
the jobs of one receiver and item run in event order; a job retries with backoff (5 attempts) and fails at once when
the notifications service is disabled or SMTP is not configured.` + webhookDoc
	web.Register(api, web.Answers(create, http.StatusCreated), h.create)
	web.Register(api, web.Op(http.MethodDelete, "/event-receivers/{id}", "deleteEventReceiver", "Remove an event receiver", web.Admin, "events"), h.delete)
	h.registerWebhooks(api)
}

type listIn struct {
	ListID string `query:"listId" doc:"list UUID: only receivers scoped to this list"`
}

func (h *Handler) list(ctx context.Context, in *listIn) (*web.Out[[]*EventReceiver], error) {
	return web.Reply(h.svc.List(ctx, in.ListID))
}

type createIn struct{ Body NewEventReceiver }

func (h *Handler) create(ctx context.Context, in *createIn) (*web.Out[*EventReceiver], error) {
	return web.ReplyCreated(h.svc.Create(ctx, in.Body))
}

type idIn struct {
	ID string `path:"id" doc:"receiver id"`
}

func (h *Handler) delete(ctx context.Context, in *idIn) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
