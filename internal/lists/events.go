package lists

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// event records an item event (listItem.created, listItem.updated,
// listItem.deleted, listItem.restored) in the change's transaction for event
// receivers and webhooks.
func (s *Service) event(ctx context.Context, name string, sc *schema, it *Item, p *auth.Principal) error {
	return outbox.Write(ctx, s.db, s.eventOf(name, sc, it, p))
}

// eventOf is the event of an item's save; p nil records no actor. Its
// payload reaches event receivers (e-mail, webhooks), not the writer: lookup
// entries travel without the displays the writer saw.
func (s *Service) eventOf(name string, sc *schema, it *Item, p *auth.Principal) outbox.Event {
	out := it.out(nil)
	out.FieldValues = withoutLookupDisplays(sc.fields, out.FieldValues)
	actor := ""
	if p != nil {
		actor = p.UserID
	}
	return outbox.Event{Name: name, ResourceType: "list_item", ResourceID: it.GUID, ScopeID: sc.list.ID,
		ActorID: actor, Payload: map[string]any{"listId": sc.list.ID, "nodeId": sc.list.NodeID, "item": out}}
}
