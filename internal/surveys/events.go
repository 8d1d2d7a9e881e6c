package surveys

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// transitionEvents names the event of each lifecycle action.
var transitionEvents = map[string]string{"publish": "survey.published", "close": "survey.closed", "reopen": "survey.reopened"}

// emit records a survey event in the change's transaction for event
// receivers and webhooks; p nil records no actor. Answers never travel:
// survey.answered says only that one more answer arrived (and from whom,
// unless anonymous).
func (s *Service) emit(ctx context.Context, name string, sv *Survey, p *auth.Principal) error {
	if name == "" {
		return nil
	}
	actor := ""
	if p != nil && !(name == "survey.answered" && sv.Definition.Anonymous) {
		actor = p.UserID
	}
	return outbox.Write(ctx, s.DB, outbox.Event{Name: name, ResourceType: "survey", ResourceID: sv.ID, ScopeID: sv.NodeID, ActorID: actor,
		Payload: map[string]any{"nodeId": sv.NodeID, "survey": map[string]any{"id": sv.ID, "slug": sv.Slug, "title": sv.Title, "status": sv.Status}}})
}
