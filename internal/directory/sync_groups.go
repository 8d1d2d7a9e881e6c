package directory

import (
	"context"
	"fmt"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/store"
)

// directoryGroup is a group entry of the group pass.
type directoryGroup struct {
	ext, name, description string
	members                []string // normalised member DNs (users and groups)
}

// syncGroups imports groups as domain_linked with nested membership
// expanded: a user in a group that is a member of G is a member of G.
func (s *Service) syncGroups(ctx context.Context, cn *conn, c Config, res *SyncResult) error {
	byDN := map[string]*directoryGroup{}
	var order []string
	attrs := []string{"cn", "description", "member", "uniqueMember", "objectSid", c.idAttr()}
	err := s.pagedSearch(ctx, cn, c, c.groupFilter(), attrs, c.groupLimit(), &res.GroupsTruncated, func(e *ldap.Entry) {
		g := &directoryGroup{ext: externalID(c, e), name: e.GetEqualFoldAttributeValue("cn"), description: e.GetEqualFoldAttributeValue("description")}
		if g.ext == "" {
			g.ext = "dn:" + normDN(e.DN)
		}
		for _, m := range append(e.GetEqualFoldAttributeValues("member"), e.GetEqualFoldAttributeValues("uniqueMember")...) {
			g.members = append(g.members, normDN(m))
		}
		dn := normDN(e.DN)
		byDN[dn] = g
		order = append(order, dn)
	})
	if err != nil {
		return fmt.Errorf("directory sync: group pass: %w", answerError(ctx, c, err))
	}
	userIDs, err := s.users.DirectoryDNs(ctx)
	if err != nil {
		return err
	}
	existing, err := s.groups.DomainGroups(ctx)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for start := 0; start < len(order); start += batchSize {
		chunk := order[start:min(start+batchSize, len(order))]
		part := &SyncResult{}
		err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			for _, dn := range chunk {
				if s.syncGroup(ctx, c, dn, byDN, userIDs, part); part.Errors > 0 {
					return errBatch
				}
			}
			return nil
		})
		if err != nil { // redo one by one: a failed group costs its own error only
			part = &SyncResult{}
			for _, dn := range chunk {
				s.syncGroup(ctx, c, dn, byDN, userIDs, part)
			}
		}
		g, p := &res.Groups, part.Groups
		g.Seen, g.Created, g.Updated, g.Unchanged, g.MembershipsTouch = g.Seen+p.Seen, g.Created+p.Created, g.Updated+p.Updated, g.Unchanged+p.Unchanged, g.MembershipsTouch+p.MembershipsTouch
		res.add(part)
	}
	for _, dn := range order {
		kept[byDN[dn].ext] = true // a group that failed to update is not removed either
	}
	if c.RemoveMissingGroups && !res.GroupsTruncated {
		for ext, id := range existing {
			if kept[ext] {
				continue
			}
			if err := s.groups.DeleteDomainGroup(ctx, id); err != nil {
				res.fail("remove group", err)
				continue
			}
			res.Groups.Removed++
		}
	}
	return nil
}

// syncGroup upserts one group and sets its members.
func (s *Service) syncGroup(ctx context.Context, c Config, dn string, byDN map[string]*directoryGroup, userIDs map[string]string, res *SyncResult) {
	g := byDN[dn]
	res.Groups.Seen++
	id, created, changed, err := s.groups.UpsertDomainGroup(ctx, g.ext, g.name, g.description)
	if err != nil {
		res.fail("group "+g.name, err)
		return
	}
	switch {
	case created:
		res.Groups.Created++
	case changed:
		res.Groups.Updated++
	default:
		res.Groups.Unchanged++
	}
	touched, err := s.groups.SetDomainMembers(ctx, id, expand(dn, byDN, userIDs), c.removeMissingMembers())
	if err != nil {
		res.fail("group "+g.name+" members", err)
		return
	}
	if touched {
		res.Groups.MembershipsTouch++
	}
}

// expand returns the user ids of group dn's members, nested groups
// included, cycle-safe.
func expand(dn string, byDN map[string]*directoryGroup, userIDs map[string]string) []string {
	visited := map[string]bool{}
	out := map[string]bool{}
	var walk func(string)
	walk = func(d string) {
		if visited[d] {
			return
		}
		visited[d] = true
		for _, m := range byDN[d].members {
			if id, ok := userIDs[m]; ok {
				out[id] = true
			} else if _, ok := byDN[m]; ok {
				walk(m)
			}
		}
	}
	walk(dn)
	ids := make([]string, 0, len(out))
	for id := range out {
		ids = append(ids, id)
	}
	return ids
}
