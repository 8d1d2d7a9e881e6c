package libraries

import (
	"context"

	"coreportal/internal/auth"
	"coreportal/internal/outbox"
)

// emitFile records a file event (file.created, file.updated, file.deleted)
// in the change's transaction for event receivers and webhooks. The payload
// is the file record without custom field values (they may name lookups
// the receiver's creator cannot view).
func (s *Service) emitFile(ctx context.Context, name string, l *lib, f *File, p *auth.Principal) error {
	o := f.out(nil)
	o.FieldValues = nil
	return outbox.Write(ctx, s.db, outbox.Event{Name: name, ResourceType: "file", ResourceID: f.GUID, ScopeID: l.ID,
		ActorID: p.UserID, Payload: map[string]any{"libraryId": l.ID, "nodeId": l.NodeID, "file": o}})
}
