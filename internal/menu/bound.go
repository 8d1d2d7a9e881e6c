package menu

import (
	"context"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// SyncBound keeps the node's own menu items bound to one resource in step
// with it, for content that offers "add to side menu" (surveys): when present
// is true and no item is bound, a top-level item is appended; bound items get
// the current title and link; when present is false every bound item (with
// its nested items) is removed. The caller has checked its rights on the
// resource; it runs in the caller's transaction when ctx carries one.
func (s *Service) SyncBound(ctx context.Context, nodeID, resourceType, resourceID, title, link string, present bool) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		all, err := s.st.items(ctx, nodeID)
		if err != nil {
			return err
		}
		var bound []row
		for _, r := range all {
			if r.ResourceType == resourceType && r.ResourceID == resourceID {
				bound = append(bound, r)
			}
		}
		now := s.now().UTC()
		switch {
		case !present:
			for _, b := range bound {
				if all, err = s.st.items(ctx, nodeID); err != nil {
					return err
				}
				if _, ok := find(all, b.ID); !ok {
					continue // removed with an enclosing bound item
				}
				if err := s.st.delete(ctx, subtree(all, b.ID)); err != nil {
					return err
				}
				if err := s.renumber(ctx, all, b.ParentItemID, b.ID); err != nil {
					return err
				}
			}
			return nil
		case len(bound) == 0:
			x := row{ID: uuid.NewString(), NodeID: nodeID, Title: title, Link: link, ResourceType: resourceType, ResourceID: resourceID,
				SortOrder: len(siblings(all, ""))}
			return s.st.insert(ctx, x, now)
		}
		for _, b := range bound {
			if b.Title == title && b.Link == link {
				continue
			}
			b.Title, b.Link = title, link
			if err := s.st.update(ctx, b, now); err != nil {
				return err
			}
		}
		return nil
	})
}
