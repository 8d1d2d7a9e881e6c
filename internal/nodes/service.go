package nodes

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Service holds the rules of nodes.
type Service struct {
	db       *store.DB
	st       *nodeStore
	acl      *acl.Engine
	now      func() time.Time
	onDelete []func(ctx context.Context, nodeID string) error
	onSaved  []func(ctx context.Context, n *Node) error
}

// New builds the nodes service.
func New(db *store.DB, engine *acl.Engine) *Service {
	return &Service{db: db, st: &nodeStore{db: db}, acl: engine, now: time.Now}
}

// OnDelete registers a hook run in the deleting transaction (e.g. the recycle
// bin purges the node's entries).
func (s *Service) OnDelete(fn func(ctx context.Context, nodeID string) error) {
	s.onDelete = append(s.onDelete, fn)
}

// OnSaved registers a hook run in the transaction that creates or changes a
// node (e.g. the search index).
func (s *Service) OnSaved(fn func(ctx context.Context, n *Node) error) {
	s.onSaved = append(s.onSaved, fn)
}

func (s *Service) saved(ctx context.Context, n *Node) error {
	for _, fn := range s.onSaved {
		if err := fn(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// Ref is the ACL reference of a node.
func Ref(id string) acl.Ref { return acl.Ref{Type: acl.Node, ID: id} }

// Lookup returns a node without checking rights (for other services and routes).
func (s *Service) Lookup(ctx context.Context, id string) (*Node, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fault.NotFound("node")
	}
	n, err := s.st.byID(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("node")
	}
	return n, err
}

// Get returns a node the caller can view (404 when missing, 403 when hidden).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (*Node, error) {
	n, err := s.Lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.acl.Require(ctx, p, Ref(id), acl.View); err != nil {
		return nil, err
	}
	return n, nil
}

// List returns every node the caller can view, as a flat array.
func (s *Service) List(ctx context.Context, p *auth.Principal) ([]*Node, error) {
	all, err := s.st.all(ctx)
	if err != nil {
		return nil, err
	}
	levels, err := s.acl.NodeLevels(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]*Node, 0, len(all))
	for _, n := range all {
		if levels[n.ID] >= acl.View {
			out = append(out, n)
		}
	}
	return out, nil
}

// All returns every node without checking rights (search crawler).
func (s *Service) All(ctx context.Context) ([]*Node, error) { return s.st.all(ctx) }

// ChildBySlug finds a child of parent ("" = root) by slug, without rights.
func (s *Service) ChildBySlug(ctx context.Context, parent, slug string) (*Node, error) {
	n, err := s.st.bySlug(ctx, parent, slug)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("node")
	}
	return n, err
}

// Path returns the node and its ancestors, from the root down.
func (s *Service) Path(ctx context.Context, id string) ([]*Node, error) {
	var chain []*Node
	for cur := id; cur != "" && len(chain) < 64; {
		n, err := s.Lookup(ctx, cur)
		if err != nil {
			return nil, err
		}
		chain = append([]*Node{n}, chain...)
		cur = n.Parent()
	}
	return chain, nil
}

// SlugPath is "/a/b/c" for a node.
func (s *Service) SlugPath(ctx context.Context, id string) (string, error) {
	chain, err := s.Path(ctx, id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range chain {
		b.WriteString("/")
		b.WriteString(n.Slug)
	}
	return b.String(), nil
}

// NewNode is the input of Create.
type NewNode struct {
	ParentID    string
	Slug        string
	Title       string
	Description string
	SortOrder   int
}

func checkTitle(title string) (string, error) { return fault.RequiredText("title", title, 200) }

func checkDescription(d string) error { return fault.MaxText("description", d, 4000) }

// checkSortOrder keeps sortOrder within the 32-bit integer column of PostgreSQL
// (SQLite would store anything, so the two databases must not disagree).
func checkSortOrder(v int) error {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return fault.Validation("sortOrder", "sortOrder must be between %d and %d", math.MinInt32, math.MaxInt32)
	}
	return nil
}

// canonicalParent turns a parentId from a request body into the canonical
// lower-case form the ids are stored in (upper case is accepted; urn:uuid:,
// braces and 32-hex are a 400): an odd spelling must neither miss the stored
// id nor reach PostgreSQL's uuid parser.
func canonicalParent(id string) (string, error) {
	if id == "" {
		return "", fault.Validation("parentId", "parentId must be a UUID")
	}
	return acl.CanonicalField("parentId", id)
}

// checkParent: administrators create and move nodes at the root; under a
// parent the caller needs edit on that parent.
func (s *Service) checkParent(ctx context.Context, p *auth.Principal, parent string) error {
	if parent == "" {
		if !p.IsAdmin {
			return fault.Forbidden("only administrators can create or move nodes at the root")
		}
		return nil
	}
	if _, ok := acl.CanonicalUUID(parent); !ok {
		return fault.Validation("parentId", "parentId must be a UUID")
	}
	if err := s.acl.Require(ctx, p, Ref(parent), acl.Edit); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return fault.NotFound("parent node").With("field", "parentId")
		}
		return err
	}
	return nil
}

// Create adds a node under parent (edit on the parent) or at the root (administrators).
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewNode) (*Node, error) {
	title, err := checkTitle(in.Title)
	if err != nil {
		return nil, err
	}
	if err := checkNodeSlug(in.Slug); err != nil {
		return nil, err
	}
	if err := checkDescription(in.Description); err != nil {
		return nil, err
	}
	if in.ParentID != "" {
		if in.ParentID, err = canonicalParent(in.ParentID); err != nil {
			return nil, err
		}
	}
	if err := checkSortOrder(in.SortOrder); err != nil {
		return nil, err
	}
	if err := s.checkParent(ctx, p, in.ParentID); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	n := &Node{ID: uuid.NewString(), Slug: in.Slug, Title: title, Description: in.Description, SortOrder: in.SortOrder, CreatedAt: now, UpdatedAt: now}
	if in.ParentID != "" {
		pid := in.ParentID
		n.ParentID = &pid
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.insert(ctx, n); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("a sibling node already has slug %q", n.Slug).With("field", "slug")
			}
			return err
		}
		var parent *acl.Ref
		if in.ParentID != "" {
			r := Ref(in.ParentID)
			parent = &r
		}
		if err := s.acl.Register(ctx, Ref(n.ID), parent); err != nil {
			return err
		}
		return s.saved(ctx, n)
	})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// Patch is the input of Update; unset fields stay.
type Patch struct {
	Parent      OptString
	Slug        *string
	Title       *string
	Description *string
	SortOrder   *int
}

// Update changes a node (edit on it). Moving needs edit on the new parent
// (administrators for the root) and is refused under the node's own subtree.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, in Patch) (*Node, error) {
	if err := s.acl.Require(ctx, p, Ref(id), acl.Edit); err != nil {
		return nil, err
	}
	var out *Node
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		n, err := s.Lookup(ctx, id)
		if err != nil {
			return err
		}
		if in.Title != nil {
			if n.Title, err = checkTitle(*in.Title); err != nil {
				return err
			}
		}
		if in.Slug != nil {
			if err := checkNodeSlug(*in.Slug); err != nil {
				return err
			}
			n.Slug = *in.Slug
		}
		if in.Description != nil {
			if err := checkDescription(*in.Description); err != nil {
				return err
			}
			n.Description = *in.Description
		}
		if in.SortOrder != nil {
			if err := checkSortOrder(*in.SortOrder); err != nil {
				return err
			}
			n.SortOrder = *in.SortOrder
		}
		moved := false
		if in.Parent.Sent {
			np := in.Parent.Value
			if in.Parent.Null {
				np = ""
			} else if np, err = canonicalParent(np); err != nil {
				return err
			}
			if np != n.Parent() {
				if err := s.checkParent(ctx, p, np); err != nil {
					return err
				}
				if np != "" {
					cyclic, err := s.acl.IsAncestor(ctx, Ref(id), Ref(np))
					if err != nil {
						return err
					}
					if cyclic {
						return fault.Validation("parentId", "a node cannot be moved under itself or one of its descendants")
					}
					n.ParentID = &np
				} else {
					n.ParentID = nil
				}
				moved = true
			}
		}
		n.UpdatedAt = s.now().UTC()
		if err := s.st.update(ctx, n); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("a sibling node already has slug %q", n.Slug).With("field", "slug")
			}
			return err
		}
		if moved {
			var parent *acl.Ref
			if n.ParentID != nil {
				r := Ref(*n.ParentID)
				parent = &r
			}
			if err := s.acl.Move(ctx, Ref(id), parent); err != nil {
				return err
			}
		}
		out = n
		return s.saved(ctx, n)
	})
	return out, err
}

// Delete removes an empty node (delete right on it). A node with child nodes
// or content (lists, libraries, pages, surveys) is refused with 409.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	if err := s.acl.Require(ctx, p, Ref(id), acl.Delete); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		n, err := s.Lookup(ctx, id)
		if err != nil {
			return err
		}
		kids, err := s.st.childCount(ctx, id)
		if err != nil {
			return err
		}
		if kids > 0 {
			return fault.Conflict("the node has %d child node(s); delete or move them first", kids)
		}
		content, err := s.acl.ChildCount(ctx, Ref(id))
		if err != nil {
			return err
		}
		if content > 0 {
			return fault.Conflict("the node still holds %d list(s), libraries, pages or surveys; delete them first", content)
		}
		for _, fn := range s.onDelete {
			if err := fn(ctx, id); err != nil {
				return err
			}
		}
		if err := s.st.delete(ctx, id); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: audit.Delete, ResourceType: "node", ResourceID: id, Before: map[string]any{"slug": n.Slug, "title": n.Title}})
		return s.acl.Forget(ctx, Ref(id))
	})
}
