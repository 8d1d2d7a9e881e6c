package menu

import (
	"context"
	"sort"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
)

func find(all []row, id string) (row, bool) {
	for _, r := range all {
		if r.ID == id {
			return r, true
		}
	}
	return row{}, false
}

// depthOf is 1 for a top-level item.
func depthOf(all []row, id string) int {
	d := 0
	for cur := id; cur != "" && d < 64; d++ {
		r, ok := find(all, cur)
		if !ok {
			break
		}
		cur = r.ParentItemID
	}
	return d
}

// height is the number of levels of the subtree rooted at id (1 for a leaf).
func height(all []row, id string) int {
	h := 0
	for _, r := range all {
		if r.ParentItemID == id {
			h = max(h, height(all, r.ID))
		}
	}
	return h + 1
}

func siblings(all []row, parent string) []row {
	var out []row
	for _, r := range all {
		if r.ParentItemID == parent {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SortOrder < out[j].SortOrder })
	return out
}

func subtree(all []row, id string) []string {
	out := []string{}
	for _, r := range all {
		if r.ParentItemID == id {
			out = append(out, subtree(all, r.ID)...)
		}
	}
	return append(out, id)
}

// renumber gives the siblings under parent sort orders 0..n-1, skipping removed.
func (s *Service) renumber(ctx context.Context, all []row, parent, removed string) error {
	var keep []row
	for _, r := range siblings(all, parent) {
		if r.ID != removed {
			keep = append(keep, r)
		}
	}
	return s.save(ctx, keep)
}

// save writes the given order (index = sort order) for rows whose place changed.
func (s *Service) save(ctx context.Context, ordered []row) error {
	now := s.now().UTC()
	for i, r := range ordered {
		r.SortOrder = i
		if err := s.st.update(ctx, r, now); err != nil {
			return err
		}
	}
	return nil
}

// Directions of Move.
const (
	Up   = "up"
	Down = "down"
	Into = "into"
	Out  = "out"
)

// Move moves an item (edit on the node): up / down swap it with its previous /
// next sibling; into makes it the last child of its previous sibling; out
// places it right after its parent. Impossible moves answer 400.
func (s *Service) Move(ctx context.Context, p *auth.Principal, nodeID, itemID, direction string) ([]*Item, error) {
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return nil, err
	}
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		x, err := s.itemOf(ctx, nodeID, itemID)
		if err != nil {
			return err
		}
		all, err := s.st.items(ctx, nodeID)
		if err != nil {
			return err
		}
		sibs := siblings(all, x.ParentItemID)
		i := 0
		for k, r := range sibs {
			if r.ID == x.ID {
				i = k
			}
		}
		switch direction {
		case Up, Down:
			j := i - 1
			if direction == Down {
				j = i + 1
			}
			if j < 0 || j >= len(sibs) {
				return fault.Validation("direction", "the item is already the %s of its level", map[string]string{Up: "first", Down: "last"}[direction])
			}
			sibs[i], sibs[j] = sibs[j], sibs[i]
			return s.save(ctx, sibs)
		case Into:
			if i == 0 {
				return fault.Validation("direction", "the first item of a level has no previous item to move into")
			}
			target := sibs[i-1]
			if depthOf(all, target.ID)+height(all, x.ID) > maxDepth {
				return fault.Validation("direction", "menus nest at most %d levels", maxDepth)
			}
			kids := siblings(all, target.ID)
			x.ParentItemID = target.ID
			if err := s.save(ctx, append(kids, x)); err != nil {
				return err
			}
			return s.save(ctx, append(sibs[:i:i], sibs[i+1:]...))
		case Out:
			if x.ParentItemID == "" {
				return fault.Validation("direction", "a top-level item cannot move out")
			}
			parent, _ := find(all, x.ParentItemID)
			if err := s.save(ctx, append(sibs[:i:i], sibs[i+1:]...)); err != nil {
				return err
			}
			outer := siblings(all, parent.ParentItemID)
			x.ParentItemID = parent.ParentItemID
			var ordered []row
			for _, r := range outer {
				ordered = append(ordered, r)
				if r.ID == parent.ID {
					ordered = append(ordered, x)
				}
			}
			return s.save(ctx, ordered)
		}
		return fault.Validation("direction", "direction must be up, down, into or out")
	})
	if err != nil {
		return nil, err
	}
	return s.tree(ctx, nodeID, nil)
}
