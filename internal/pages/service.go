package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/nodes"
	"coreportal/internal/recyclebin"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// Bin is the recycle bin as pages use it (*recyclebin.Service).
type Bin interface {
	Add(ctx context.Context, e recyclebin.Entry) (string, error)
}

// Service holds the rules of pages.
type Service struct {
	db  *store.DB
	st  *pageStore
	acl *acl.Engine
	bin Bin
	now func() time.Time
	// index is the search index (nil when not wired)
	index search.Index
}

// New builds the pages service.
func New(db *store.DB, engine *acl.Engine, bin Bin) *Service {
	return &Service{db: db, st: &pageStore{db: db}, acl: engine, bin: bin, now: time.Now}
}

// Ref is the ACL reference of a page.
func Ref(id string) acl.Ref { return acl.Ref{Type: acl.Page, ID: id} }

// Kind is the recycle-bin kind of a deleted page.
const Kind = "page"

func checkTitle(title string) (string, error) { return fault.RequiredText("title", title, maxTitle) }

func checkContent(content string) (string, error) {
	if utf8.RuneCountInString(content) > MaxContent {
		return "", fault.Validation("content", "content must have at most %d characters", MaxContent)
	}
	return field.SanitizeHTML(content), nil
}

func slugTaken(slug string) error {
	return fault.Conflict("the node already has a page with slug %q", slug).With("field", "slug")
}

// load returns a live page (404 when missing or in the recycle bin), then
// checks min on it (403 when the caller lacks it).
func (s *Service) load(ctx context.Context, p *auth.Principal, id string, min acl.Level) (*Page, error) {
	id, ok := acl.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "id must be a UUID")
	}
	pg, err := s.st.page(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("page")
	}
	if err != nil {
		return nil, err
	}
	if err := s.acl.Require(ctx, p, Ref(id), min); err != nil {
		return nil, err
	}
	return pg, nil
}

// List returns one page (offset, limit) of the node's pages the caller can
// view, ordered by title, and their total (view on the node).
func (s *Service) List(ctx context.Context, p *auth.Principal, nodeID string, offset, limit int) ([]*Page, int, error) {
	nodeID, ok := acl.CanonicalUUID(nodeID)
	if !ok {
		return nil, 0, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.View); err != nil {
		return nil, 0, err
	}
	all, err := s.st.ofNode(ctx, nodeID)
	if err != nil {
		return nil, 0, err
	}
	visible := make([]*Page, 0, len(all))
	for _, pg := range all {
		lvl, err := s.acl.Level(ctx, p, Ref(pg.ID))
		if err != nil {
			return nil, 0, err
		}
		if lvl >= acl.View {
			visible = append(visible, pg)
		}
	}
	total := len(visible)
	if offset >= total {
		return []*Page{}, total, nil
	}
	return visible[offset:min(total, offset+limit)], total, nil
}

// Create adds a page to a node (edit on the node).
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewPage) (*Page, error) {
	nodeID, ok := acl.CanonicalUUID(in.NodeID)
	if !ok {
		return nil, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	title, err := checkTitle(in.Title)
	if err != nil {
		return nil, err
	}
	if err := nodes.CheckSlug("slug", in.Slug); err != nil {
		return nil, err
	}
	content, err := checkContent(in.Content)
	if err != nil {
		return nil, err
	}
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.Edit); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	by := p.UserID
	pg := &Page{ID: uuid.NewString(), NodeID: nodeID, Slug: in.Slug, Title: title, Content: content,
		CreatedBy: &by, UpdatedBy: &by, CreatedAt: now, UpdatedAt: now}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if _, err := s.st.bySlug(ctx, nodeID, pg.Slug); err == nil {
			return slugTaken(pg.Slug)
		} else if !store.IsNotFound(err) {
			return err
		}
		if err := s.st.insert(ctx, pg); err != nil {
			if store.IsUnique(err) {
				return slugTaken(pg.Slug)
			}
			return err
		}
		node := nodes.Ref(nodeID)
		if err := s.acl.Register(ctx, Ref(pg.ID), &node); err != nil {
			return err
		}
		if err := s.indexPage(ctx, pg); err != nil {
			return err
		}
		if err := s.emit(ctx, "page.created", pg, p); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: "page.create", ResourceType: Kind, ResourceID: pg.ID,
			After: map[string]any{"nodeId": nodeID, "slug": pg.Slug, "title": pg.Title}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pg, nil
}

// Get returns a page (view on the page).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (*Page, error) {
	return s.load(ctx, p, id, acl.View)
}

// Update changes title, slug or content (edit on the page).
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, in Patch) (*Page, error) {
	pg, err := s.load(ctx, p, id, acl.Edit)
	if err != nil {
		return nil, err
	}
	before := map[string]any{"slug": pg.Slug, "title": pg.Title}
	var cols []string
	if in.Title != nil {
		if pg.Title, err = checkTitle(*in.Title); err != nil {
			return nil, err
		}
		cols = append(cols, "title")
	}
	if in.Slug != nil {
		if err := nodes.CheckSlug("slug", *in.Slug); err != nil {
			return nil, err
		}
		pg.Slug = *in.Slug
		cols = append(cols, "slug")
	}
	if in.Content != nil {
		if pg.Content, err = checkContent(*in.Content); err != nil {
			return nil, err
		}
		cols = append(cols, "content")
	}
	if len(cols) == 0 {
		return pg, nil
	}
	by := p.UserID
	pg.UpdatedBy, pg.UpdatedAt = &by, s.now().UTC()
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if other, err := s.st.bySlug(ctx, pg.NodeID, pg.Slug); err == nil && other != pg.ID {
			return slugTaken(pg.Slug)
		} else if err != nil && !store.IsNotFound(err) {
			return err
		}
		if err := s.st.update(ctx, pg, cols); err != nil {
			if store.IsUnique(err) {
				return slugTaken(pg.Slug)
			}
			return err
		}
		if err := s.indexPage(ctx, pg); err != nil {
			return err
		}
		if err := s.emit(ctx, "page.updated", pg, p); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: "page.update", ResourceType: Kind, ResourceID: pg.ID, Before: before,
			After: map[string]any{"slug": pg.Slug, "title": pg.Title}, Details: map[string]any{"changed": cols}})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pg, nil
}

// binPage is the recycle-bin payload of a deleted page.
type binPage struct {
	ID     string `json:"id"`
	NodeID string `json:"nodeId"`
	Slug   string `json:"slug"`
	Title  string `json:"title"`
}

// Delete moves a page to the recycle bin (delete on the page). The row and
// its ACL registration stay, so a restore brings back its explicit rights.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	pg, err := s.load(ctx, p, id, acl.Delete)
	if err != nil {
		return err
	}
	if s.bin == nil {
		return fault.New(fault.CodeUnavailable, "the recycle bin is not available")
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		now := s.now().UTC()
		if err := s.st.setDeleted(ctx, pg.ID, &now); err != nil {
			return err
		}
		if err := s.unindex(ctx, pg.ID); err != nil {
			return err
		}
		payload, err := json.Marshal(binPage{ID: pg.ID, NodeID: pg.NodeID, Slug: pg.Slug, Title: pg.Title})
		if err != nil {
			return fmt.Errorf("page bin payload: %w", err)
		}
		// the page is the entry's scope: callers who cannot view an isolated
		// page do not see its title in the bin, and restore needs delete on it
		if err := s.emit(ctx, "page.deleted", pg, p); err != nil {
			return err
		}
		_, err = s.bin.Add(ctx, recyclebin.Entry{NodeID: pg.NodeID, Kind: Kind, Title: pg.Title, DeletedBy: p.UserID, ScopeID: pg.ID, Payload: payload, ResourceID: pg.ID})
		return err
	})
}

func payloadOf(e recyclebin.Entry) (binPage, error) {
	var b binPage
	if err := json.Unmarshal(e.Payload, &b); err != nil || b.ID == "" {
		return b, errors.Join(errors.New("page bin payload unreadable"), err)
	}
	return b, nil
}

// Restore is the recycle-bin restore of kind "page" (the restoring caller
// bound to ctx): 409 when a live page of the node took its slug meanwhile;
// emits page.restored.
func (s *Service) Restore(ctx context.Context, e recyclebin.Entry) error {
	b, err := payloadOf(e)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		pg, err := s.st.pageAny(ctx, b.ID)
		if store.IsNotFound(err) {
			return fault.NotFound("page")
		}
		if err != nil {
			return err
		}
		if _, err := s.st.bySlug(ctx, pg.NodeID, pg.Slug); err == nil {
			return fault.Conflict("the node already has a page with slug %q; rename it first", pg.Slug)
		} else if !store.IsNotFound(err) {
			return err
		}
		if err := s.st.setDeleted(ctx, pg.ID, nil); err != nil {
			return err
		}
		if err := s.emit(ctx, "page.restored", pg, auth.FromContext(ctx)); err != nil {
			return err
		}
		return s.indexPage(ctx, pg)
	})
}

// Purge is the recycle-bin purge of kind "page": the row and its rights go.
func (s *Service) Purge(ctx context.Context, e recyclebin.Entry) error {
	b, err := payloadOf(e)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.acl.Forget(ctx, Ref(b.ID)); err != nil {
			return err
		}
		return s.st.delete(ctx, b.ID)
	})
}

// ResolveSlug finds a live page by node and slug (routes resolver).
func (s *Service) ResolveSlug(ctx context.Context, nodeID, slug string) (string, error) {
	id, err := s.st.bySlug(ctx, nodeID, strings.ToLower(slug))
	if store.IsNotFound(err) {
		return "", fault.NotFound("page")
	}
	return id, err
}

// SlugOf returns the node and slug of a live page (routes, menu links).
func (s *Service) SlugOf(ctx context.Context, id string) (string, string, error) {
	id, ok := acl.CanonicalUUID(id)
	if !ok {
		return "", "", fault.NotFound("page")
	}
	pg, err := s.st.page(ctx, id)
	if store.IsNotFound(err) {
		return "", "", fault.NotFound("page")
	}
	if err != nil {
		return "", "", err
	}
	return pg.NodeID, pg.Slug, nil
}
