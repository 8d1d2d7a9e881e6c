package groups

import (
	"context"
	"strings"

	"coreportal/internal/store"
)

// JoinDomainGroupsByName adds a user to every domain_linked group whose name
// equals one of names (any case): the group claims of a single sign-on.
// Portal groups are never touched, and nothing is removed (ad-sync owns the
// full membership). Each join emits group.memberAdded. It answers the ids of
// the groups joined now.
func (s *Service) JoinDomainGroupsByName(ctx context.Context, userID string, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[strings.ToLower(strings.TrimSpace(n))] = true
	}
	all, err := s.st.list(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	var joined []string
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		now := s.now().UTC()
		for _, g := range all {
			if g.GroupType != DomainLinked || !want[strings.ToLower(g.Name)] {
				continue
			}
			cur, err := s.st.memberIDs(ctx, g.ID)
			if err != nil {
				return err
			}
			if cur[userID] {
				continue
			}
			if err := s.st.addMember(ctx, g.ID, userID, now); err != nil {
				return err
			}
			if err := s.emitMembers(ctx, "group.memberAdded", g.ID, []string{userID}); err != nil {
				return err
			}
			joined = append(joined, g.ID)
		}
		if len(joined) > 0 {
			s.acl.Invalidate(ctx)
		}
		return nil
	})
	return joined, err
}
