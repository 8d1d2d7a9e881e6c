package pages

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// emit records a page event (page.created, page.updated, page.deleted,
// page.restored) in the change's transaction for event receivers and
// webhooks; p nil records no actor.
func (s *Service) emit(ctx context.Context, name string, pg *Page, p *auth.Principal) error {
	actor := ""
	if p != nil {
		actor = p.UserID
	}
	return outbox.Write(ctx, s.db, outbox.Event{Name: name, ResourceType: Kind, ResourceID: pg.ID, ScopeID: pg.NodeID,
		ActorID: actor, Payload: map[string]any{"nodeId": pg.NodeID, "page": pg}})
}
