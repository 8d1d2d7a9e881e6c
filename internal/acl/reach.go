package acl

import (
	"context"
	"fmt"

	"coreportal/internal/auth"
	"coreportal/internal/store"
)

// containerTypes are the resources placed directly in a node.
const containerTypes = "'list', 'library', 'page', 'survey'"

// Reach is what a caller may view across the whole portal, for indexes that
// keep, per entry, its container and the objects of its chain below the
// container (search). The chain rule of Level reads there: an entry is
// visible when the caller holds a record on the entry or on an object of
// its chain below the container, or when nothing on that chain is isolated
// and the caller can view the container (a node it can view, a container
// inheriting from one, or a container holding one of its records).
type Reach struct {
	// Containers are the nodes the caller can view and the containers
	// inheriting from them.
	Containers []string
	// Granted are the resources holding a record of the caller (the user or
	// one of its groups).
	Granted []string
}

// Reach returns the caller's reach; nil for administrators (everything).
func (e *Engine) Reach(ctx context.Context, p *auth.Principal) (*Reach, error) {
	if p != nil && p.IsAdmin {
		return nil, nil
	}
	r := &Reach{Containers: []string{}, Granted: []string{}}
	if p == nil {
		return r, nil
	}
	levels, err := e.NodeLevels(ctx, p)
	if err != nil {
		return nil, err
	}
	for id, l := range levels {
		if l >= View {
			r.Containers = append(r.Containers, id)
		}
	}
	if r.Granted, err = e.st.grantedTo(ctx, p.UserID); err != nil {
		return nil, err
	}
	if len(r.Containers) > 0 {
		cs, err := e.st.inheritingContainers(ctx, r.Containers)
		if err != nil {
			return nil, err
		}
		r.Containers = append(r.Containers, cs...)
	}
	return r, nil
}

// ChainColumns tells Reach.Condition where an index keeps an entry's chain.
type ChainColumns struct {
	Entry     string // the entry's resource id
	Container string // its container (list, library, page, survey)
	Boundary  string // the nearest isolated object of its chain below the container, NULL when none
	// Set is the SQL of an id set taking one argument, SetArg(ids).
	Set    string
	SetArg func(ids []string) any
	// Below is the condition "an object of the entry's chain below the
	// container, up to its boundary, is in set".
	Below func(set string) string
}

// Open are the containers whose open entries (no isolated object on the
// chain below the container) the caller may view: Containers and the
// granted ones. Indexes that keep "open" and "container" per entry as terms
// (search bitmaps) filter the first branch of Condition with it; the
// entries visible through Granted alone are read apart.
func (r *Reach) Open() []string {
	return append(append(make([]string, 0, len(r.Containers)+len(r.Granted)), r.Containers...), r.Granted...)
}

// Condition is the SQL condition on c's columns that keeps the entries the
// caller may view (the common case first: OR stops at the first true branch).
func (r *Reach) Condition(c ChainColumns) Condition {
	g := c.SetArg(r.Granted)
	return Condition{
		SQL: "((" + c.Boundary + " IS NULL AND (" + c.Container + " IN " + c.Set + " OR " + c.Container + " IN " + c.Set + "))" +
			" OR " + c.Entry + " IN " + c.Set + " OR " + c.Below(c.Set) + ")",
		// Containers and Granted apart: each set stays small and planned alike
		Args: []any{c.SetArg(r.Containers), g, g, g},
	}
}

// grantedTo returns the resources holding a record of the user or of one
// of its groups.
func (s *aclStore) grantedTo(ctx context.Context, userID string) ([]string, error) {
	ids, err := s.ids(ctx, `SELECT DISTINCT e.resource_id FROM acl_entries e WHERE e.level >= ? AND `+principalMatch, int(View), userID, userID)
	if err != nil {
		return nil, fmt.Errorf("grants of %s: %w", userID, err)
	}
	return ids, nil
}

// inheritingContainers returns the containers inheriting from one of nodes.
func (s *aclStore) inheritingContainers(ctx context.Context, nodes []string) ([]string, error) {
	var out []string
	for len(nodes) > 0 {
		n := min(len(nodes), 500)
		args := make([]any, 0, n+1)
		for _, id := range nodes[:n] {
			args = append(args, id)
		}
		args = append(args, true)
		ids, err := s.ids(ctx, `SELECT o.id FROM acl_objects o WHERE o.parent_id IN (`+store.Placeholders(n)+`)
			AND o.type IN (`+containerTypes+`) AND o.inherits = ?`, args...)
		if err != nil {
			return nil, fmt.Errorf("containers of visible nodes: %w", err)
		}
		out = append(out, ids...)
		nodes = nodes[n:]
	}
	return out, nil
}
