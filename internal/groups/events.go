package groups

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// emitMembers records group.memberAdded / group.memberRemoved in the
// change's transaction for event receivers and webhooks.
func (s *Service) emitMembers(ctx context.Context, name, groupID string, userIDs []string) error {
	actor := ""
	if p := auth.FromContext(ctx); p != nil && !p.IsSystem {
		actor = p.UserID
	}
	return outbox.Write(ctx, s.db, outbox.Event{Name: name, ResourceType: "group", ResourceID: groupID, ActorID: actor,
		Payload: map[string]any{"groupId": groupID, "userIds": userIDs}})
}
