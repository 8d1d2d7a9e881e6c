package libraries

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// emitFile records a file event (file.created, file.updated, file.deleted,
// file.restored) in the change's transaction for event receivers and
// webhooks; p nil records no actor. The payload is the file record without
// custom field values (they may name lookups the receiver's creator cannot
// view).
func (s *Service) emitFile(ctx context.Context, name string, l *lib, f *File, p *auth.Principal) error {
	o := f.out(nil)
	o.FieldValues = nil
	actor := ""
	if p != nil {
		actor = p.UserID
	}
	return outbox.Write(ctx, s.db, outbox.Event{Name: name, ResourceType: "file", ResourceID: f.GUID, ScopeID: l.ID,
		ActorID: actor, Payload: map[string]any{"libraryId": l.ID, "nodeId": l.NodeID, "file": o}})
}
