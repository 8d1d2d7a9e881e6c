package events

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/jobs"
	"coreportal/internal/web"
	"coreportal/internal/webhooks"
)

// webhookDoc documents webhooks.post and the event catalogue in the API reference.
const webhookDoc = `

Event catalogue (eventName): listItem.created, listItem.updated, listItem.deleted, listItem.restored (resource list_item,
scope the list; data {listId, nodeId, item}); file.created (also a new folder: data.file.item_type "folder"), file.updated,
file.deleted, file.restored (resource file, scope the library; data {libraryId, nodeId, file}); page.created, page.updated,
page.deleted, page.restored (resource page, scope the node; data {nodeId, page}); survey.created (also a duplicate),
survey.published, survey.closed, survey.reopened, survey.answered, survey.deleted, survey.restored (resource survey, scope
the node; data {nodeId, survey {id, slug, title, status}}, never the answers); group.memberAdded, group.memberRemoved
(resource group; data {groupId, userIds}; also when directory sync or a sign-in's group claims change a domain_linked group,
then without actor; only receivers created by an administrator get them). The *.restored events fire when a recycle-bin
entry is restored (a restored folder: one file.restored for the folder). config.listId scopes a receiver to
one list or library id (the event's scope).

jobType webhooks.post (serviceKey notifications): config.url (http or https) and config.secret (16-256 characters). The
secret is never returned: answers show config.secret "********" and config.hasSecret. Each event is POSTed as JSON
{id, event, occurredAt, actor {id, login} or null, resource {type, id, scopeId}, data, receiverId} with headers
X-Core-Signature: sha256=<hex HMAC-SHA256 of the exact body with the secret>, X-Core-Delivery (the delivery id, the same on
every retry of one event), X-Core-Event, X-Core-Attempt and X-Core-Timestamp. A 2xx answer is success; any other answer, a
redirect (never followed) or no answer within CORE_WEBHOOK_TIMEOUT (default 10s) is a failure, retried up to 6 attempts with
exponential backoff (CORE_WEBHOOK_BACKOFF, default 10s: 10s, 20s, 40s, 80s, 160s). Deliveries are jobs written after the change
commits, so a slow receiver never slows the change. The payload is sent only when the receiver's creator may view the
resource at delivery time (for a deleted resource: its list, library or node); otherwise the attempt is logged as withheld and
nothing is sent. SSRF: a URL whose host is, or resolves to, a private, loopback, link-local (169.254.0.0/16, e.g. cloud
metadata), CGNAT, multicast or reserved address is refused with 400 VALIDATION_ERROR (field config.url) unless the host is
listed in CORE_WEBHOOK_ALLOWED_HOSTS; the address of every connection is checked again after DNS, so a name that later
resolves inward is refused at delivery (status refused, not retried). Every attempt is logged (kept 30 days): GET
/event-receivers/{id}/deliveries.`

func (h *Handler) registerWebhooks(api huma.API) {
	list := web.Op(http.MethodGet, "/event-receivers/{id}/deliveries", "listWebhookDeliveries", "Delivery log of a webhook receiver, newest first", web.Admin, "events")
	list.Description += ` One row per attempt: status succeeded, retrying (nextRetryAt says when the next attempt is due), failed (no
attempt left), refused (the target address is refused by the SSRF rule) or withheld (the receiver's creator may not view the
resource; nothing was sent); httpStatus, durationMs and the first 1 KiB of the answer. 400 VALIDATION_ERROR when the receiver is not a webhooks.post receiver.`
	web.Register(api, list, h.deliveries)
	test := web.Op(http.MethodPost, "/event-receivers/{id}/test", "testWebhookReceiver", "Send a test delivery to a webhook receiver now", web.Admin, "events")
	test.Description += ` Posts one event webhook.test (data {test: true, receiverTitle, subscribedEvent}), signed like every
delivery, waits for the answer (at most CORE_WEBHOOK_TIMEOUT), logs it and returns the logged attempt; a test is not retried.
The answer is 200 whatever the receiver answered: see status, httpStatus and error.`
	web.Register(api, test, h.test)
}

type deliveriesIn struct {
	ID    string `path:"id" doc:"receiver id"`
	Page  int    `query:"page" minimum:"1" maximum:"1000000" default:"1" doc:"page number, from 1"`
	Limit int    `query:"limit" minimum:"1" maximum:"500" default:"50" doc:"page size, 1-500"`
}

func (h *Handler) deliveries(ctx context.Context, in *deliveriesIn) (*web.PagedOut[[]webhooks.Attempt, web.PageMeta], error) {
	if err := jobs.CheckPage(in.Page); err != nil {
		return nil, err
	}
	rows, total, err := h.svc.Deliveries(ctx, in.ID, in.Page, in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(rows, web.NewPageMeta(web.PageQuery{Page: in.Page, Limit: in.Limit}, total)), nil
}

func (h *Handler) test(ctx context.Context, in *idIn) (*web.Out[*webhooks.Attempt], error) {
	return web.Reply(h.svc.TestDelivery(ctx, in.ID))
}
