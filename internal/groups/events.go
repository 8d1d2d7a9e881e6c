package groups

import (
	"context"
	"slices"

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

// emitChanges records the memberships a call added and removed (none: no
// event), user ids sorted.
func (s *Service) emitChanges(ctx context.Context, groupID string, added, removed []string) error {
	for _, c := range []struct {
		name string
		ids  []string
	}{{"group.memberAdded", added}, {"group.memberRemoved", removed}} {
		if len(c.ids) == 0 {
			continue
		}
		slices.Sort(c.ids)
		if err := s.emitMembers(ctx, c.name, groupID, c.ids); err != nil {
			return err
		}
	}
	return nil
}
