// Package recyclebin keeps soft-deleted content per node: lists, items,
// libraries, files and pages register a kind with its restore and purge
// handlers and add entries in the deleting transaction.
package recyclebin

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Entry is one recycle-bin entry.
type Entry struct {
	ID        string
	NodeID    string
	Kind      string // "list", "list_item", "library", "file", "page", …
	Title     string
	DeletedBy string // user id, "" for the system
	DeletedAt time.Time
	Payload   json.RawMessage // snapshot the kind's restore handler needs
	// ScopeID groups entries of one container (the list of deleted items, the
	// library of deleted files) so that PurgeKindForScope can drop them together.
	ScopeID string
	// ResourceID is the deleted resource itself as the access engine knows it
	// (item guid, file guid, list, library, page or survey id), still
	// registered while the entry is in the bin. The bin shows the entry only
	// to callers who can view that resource, its own isolation included.
	ResourceID string
}

// KindFunc restores or purges one entry of a kind (called inside a
// transaction, the caller bound to ctx: auth.FromContext). A restore emits
// the owner's *.restored event in that transaction.
type KindFunc func(ctx context.Context, e Entry) error

type kind struct{ restore, purge KindFunc }

// Service is the recycle bin.
type Service struct {
	db    *store.DB
	st    *binStore
	acl   *acl.Engine
	mu    sync.RWMutex
	kinds map[string]kind
	now   func() time.Time
}

// New builds the recycle bin.
func New(db *store.DB, engine *acl.Engine) *Service {
	return &Service{db: db, st: &binStore{db: db}, acl: engine, kinds: map[string]kind{}, now: time.Now}
}

// RegisterKind plugs in the restore and purge handlers of a kind.
func (s *Service) RegisterKind(kind_ string, restore func(ctx context.Context, e Entry) error, purge func(ctx context.Context, e Entry) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kinds[kind_] = kind{restore: restore, purge: purge}
}

func (s *Service) kind(k string) (kind, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h, ok := s.kinds[k]
	return h, ok
}

// Add records an entry in the caller's transaction and returns its id.
func (s *Service) Add(ctx context.Context, e Entry) (string, error) {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	if e.DeletedAt.IsZero() {
		e.DeletedAt = s.now()
	}
	e.DeletedAt = e.DeletedAt.UTC()
	if len(e.Payload) == 0 {
		e.Payload = json.RawMessage("{}")
	}
	if e.NodeID == "" || e.Kind == "" {
		return "", fmt.Errorf("recycle bin: entry needs a node and a kind")
	}
	if err := s.st.insert(ctx, e); err != nil {
		return "", err
	}
	audit.Record(ctx, audit.Entry{Action: audit.Delete, ResourceType: e.Kind, ResourceID: e.ID,
		Details: map[string]any{"title": e.Title, "nodeId": e.NodeID, "scopeId": e.ScopeID, "recycleBin": true}})
	return e.ID, nil
}

// viewer decides, for one caller, which entries of a bin it may see: the
// deleted resource as it was (its own isolation included) when the entry
// names one that is still registered; else the container it was deleted from
// while that is registered; else the node right alone. Levels are asked once
// per resource or container.
type viewer struct {
	s      *Service
	p      *auth.Principal
	levels map[string]acl.Level
	known  map[string]bool
}

func (s *Service) viewer(p *auth.Principal) *viewer {
	return &viewer{s: s, p: p, levels: map[string]acl.Level{}, known: map[string]bool{}}
}

// level reports whether id is a registered resource and the caller's level on it.
func (v *viewer) level(ctx context.Context, id string) (bool, acl.Level, error) {
	if id == "" {
		return false, acl.None, nil
	}
	if ok, seen := v.known[id]; seen {
		return ok, v.levels[id], nil
	}
	ref := acl.Ref{Type: acl.List, ID: id} // the engine looks resources up by id alone
	ok, err := v.s.acl.Exists(ctx, ref)
	if err != nil {
		return false, acl.None, err
	}
	lvl := acl.None
	if ok {
		if lvl, err = v.s.acl.Level(ctx, v.p, ref); err != nil {
			return false, acl.None, err
		}
	}
	v.known[id], v.levels[id] = ok, lvl
	return ok, lvl, nil
}

// entryLevel is the caller's level on what decides an entry; registered is
// false when neither the resource nor its container is registered any more.
func (v *viewer) entryLevel(ctx context.Context, resourceID, scopeID string) (registered bool, lvl acl.Level, err error) {
	if ok, lvl, err := v.level(ctx, resourceID); err != nil || ok {
		return ok, lvl, err
	}
	return v.level(ctx, scopeID)
}

// List returns one page of a node's entries, newest first, and their total.
// Needs edit on the node: the bin shows titles of content that ordinary
// readers no longer see. An entry is listed (and counted) only when the
// caller can view the deleted resource as it was, its own isolation included
// (an item or file with its own permissions), or, for entries that do not
// name their resource, the list, library or folder it was deleted from while
// that exists; entries of neither follow the node rule alone.
func (s *Service) List(ctx context.Context, p *auth.Principal, nodeID string, offset, limit int) ([]Entry, int, error) {
	if err := s.acl.Require(ctx, p, acl.Ref{Type: acl.Node, ID: nodeID}, acl.Edit); err != nil {
		return nil, 0, err
	}
	if p.IsAdmin { // administrators view every registered resource
		return s.st.list(ctx, nodeID, offset, limit)
	}
	refs, err := s.st.refs(ctx, nodeID)
	if err != nil {
		return nil, 0, err
	}
	v := s.viewer(p)
	var visible []string
	for _, r := range refs {
		registered, lvl, err := v.entryLevel(ctx, r.resourceID, r.scopeID)
		if err != nil {
			return nil, 0, err
		}
		if !registered || lvl >= acl.View {
			visible = append(visible, r.id)
		}
	}
	total := len(visible)
	if offset >= total {
		return []Entry{}, total, nil
	}
	es, err := s.st.byIDs(ctx, visible[offset:min(total, offset+limit)])
	return es, total, err
}

// entryOf loads an entry for restore or purge: delete on the node and, while
// the entry's scope is registered, delete on the scope too (404 when p cannot
// view the scope, as if the entry did not exist; 403 when p views it only).
func (s *Service) entryOf(ctx context.Context, p *auth.Principal, nodeID, entryID string) (Entry, kind, error) {
	if err := s.acl.Require(ctx, p, acl.Ref{Type: acl.Node, ID: nodeID}, acl.Delete); err != nil {
		return Entry{}, kind{}, err
	}
	if _, err := uuid.Parse(entryID); err != nil {
		return Entry{}, kind{}, fault.Validation("id", "entry id must be a UUID")
	}
	e, err := s.st.byID(ctx, entryID)
	if store.IsNotFound(err) || err == nil && e.NodeID != nodeID {
		return Entry{}, kind{}, fault.NotFound("recycle-bin entry")
	}
	if err != nil {
		return Entry{}, kind{}, err
	}
	v := s.viewer(p)
	registered, lvl, err := v.entryLevel(ctx, e.ResourceID, e.ScopeID)
	if err != nil {
		return Entry{}, kind{}, err
	}
	if registered && lvl < acl.View {
		// CONTRACT: an existing entry the caller may not see is 403, not 404.
		return Entry{}, kind{}, fault.Forbidden("view and delete rights on the deleted content as it was are required")
	}
	if registered && lvl < acl.Delete {
		return Entry{}, kind{}, fault.Forbidden("delete right on the deleted content as it was (or the list, library or folder it was deleted from) is required")
	}
	h, ok := s.kind(e.Kind)
	if !ok {
		return Entry{}, kind{}, fault.Conflict("entries of kind %q cannot be handled by this service", e.Kind)
	}
	return e, h, nil
}

// Restore puts an entry's content back (delete on the node, and on the scope
// while it is registered) and removes the entry.
func (s *Service) Restore(ctx context.Context, p *auth.Principal, nodeID, entryID string) (Entry, error) {
	ctx = auth.WithPrincipal(ctx, p) // the owner's restore event names the caller
	var out Entry
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		e, h, err := s.entryOf(ctx, p, nodeID, entryID)
		if err != nil {
			return err
		}
		if h.restore == nil {
			return fault.Conflict("entries of kind %q cannot be restored", e.Kind)
		}
		if err := h.restore(ctx, e); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: audit.Restore, ResourceType: e.Kind, ResourceID: e.ID,
			Details: map[string]any{"title": e.Title, "nodeId": e.NodeID}})
		out = e
		return s.st.delete(ctx, e.ID)
	})
	return out, err
}

// Purge deletes one entry for good (delete on the node, and on the scope while
// it is registered).
func (s *Service) Purge(ctx context.Context, p *auth.Principal, nodeID, entryID string) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		e, h, err := s.entryOf(ctx, p, nodeID, entryID)
		if err != nil {
			return err
		}
		return s.purgeOne(ctx, e, h)
	})
}

func (s *Service) purgeOne(ctx context.Context, e Entry, h kind) error {
	if h.purge != nil {
		if err := h.purge(ctx, e); err != nil {
			return fmt.Errorf("purge %s entry %s: %w", e.Kind, e.ID, err)
		}
	}
	audit.Record(ctx, audit.Entry{Action: audit.Purge, ResourceType: e.Kind, ResourceID: e.ID,
		Details: map[string]any{"title": e.Title, "nodeId": e.NodeID}})
	return s.st.delete(ctx, e.ID)
}

// purgeEntries purges the given entries in the caller's transaction (or one of its own).
func (s *Service) purgeEntries(ctx context.Context, es []Entry) (int, error) {
	n := 0
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		for _, e := range es {
			h, _ := s.kind(e.Kind) // unknown kinds: drop the row, nothing else to clean
			if err := s.purgeOne(ctx, e, h); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// PurgeOlderThan purges every entry deleted more than age ago (service
// recycle-bin). Each entry is purged in its own transaction: an entry whose
// kind handler fails is logged, counted in failed and left in the bin, and
// the others are still purged, so one bad entry cannot stall the bin.
func (s *Service) PurgeOlderThan(ctx context.Context, age time.Duration) (purged, failed int, err error) {
	before := s.now().Add(-age).UTC()
	var cursor Entry
	for {
		es, err := s.st.olderThan(ctx, before, cursor, 200)
		if err != nil {
			return purged, failed, err
		}
		if len(es) == 0 {
			return purged, failed, nil
		}
		for _, e := range es {
			if ctx.Err() != nil {
				return purged, failed, ctx.Err()
			}
			if _, err := s.purgeEntries(ctx, []Entry{e}); err != nil {
				if store.IsUnavailable(err) {
					// not this entry's fault: stop, and let the run fail and retry
					return purged, failed, err
				}
				failed++
				slog.WarnContext(ctx, "recycle-bin entry not purged", "entry", e.ID, "kind", e.Kind, "err", err)
				continue
			}
			purged++
		}
		cursor = es[len(es)-1]
	}
}

// PurgeKindForScope purges every entry of kind whose ScopeID is scopeID, in the
// caller's transaction (deleting a list purges its items already in the bin).
func (s *Service) PurgeKindForScope(ctx context.Context, kind_, scopeID string) (int, error) {
	es, err := s.st.byScope(ctx, kind_, scopeID)
	if err != nil {
		return 0, err
	}
	return s.purgeEntries(ctx, es)
}

// DeleteWhere purges the entries of kind for which match is true.
func (s *Service) DeleteWhere(ctx context.Context, kind_ string, match func(Entry) bool) error {
	es, err := s.st.byKind(ctx, kind_)
	if err != nil {
		return err
	}
	var picked []Entry
	for _, e := range es {
		if match(e) {
			picked = append(picked, e)
		}
	}
	_, err = s.purgeEntries(ctx, picked)
	return err
}

// PurgeNode purges every entry of a node (the node is being deleted).
func (s *Service) PurgeNode(ctx context.Context, nodeID string) error {
	es, err := s.st.ofNode(ctx, nodeID)
	if err != nil {
		return err
	}
	_, err = s.purgeEntries(ctx, es)
	return err
}

// Count is the number of entries (dashboard).
func (s *Service) Count(ctx context.Context) (int, error) { return s.st.count(ctx) }
