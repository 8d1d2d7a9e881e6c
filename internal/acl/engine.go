package acl

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// changedTopic tells every instance to drop its permission cache.
const changedTopic = "acl.changed"

// cacheTTL is a safety net: even if an invalidation message is lost, another
// instance serves a stale level at most this long.
const cacheTTL = 30 * time.Second

// maxCached bounds the cache; when full it is dropped and refilled.
const maxCached = 200_000

// Engine answers "what level does this user have on this resource".
type Engine struct {
	db  *store.DB
	st  *aclStore
	bus bus.Bus
	now func() time.Time

	gen atomic.Uint64 // bumped by every invalidation

	mu         sync.RWMutex
	levels     map[levelKey]cachedLevel
	principals map[string]cachedPrincipals

	resolvers sync.Map // Type -> NumberResolver

	// rescoped run inside the transaction of an inheritance change or a move
	// (the search index recomputes which isolated resource governs an entry).
	rescoped []func(ctx context.Context, ref Ref) error
}

// OnRescope registers fn to run, in the same transaction, after ref's
// inheritance flag or parent changed (wiring time only).
func (e *Engine) OnRescope(fn func(ctx context.Context, ref Ref) error) {
	e.rescoped = append(e.rescoped, fn)
}

func (e *Engine) rescope(ctx context.Context, ref Ref) error {
	for _, fn := range e.rescoped {
		if err := fn(ctx, ref); err != nil {
			return err
		}
	}
	return nil
}

type levelKey struct{ user, resource string }

type cachedLevel struct {
	level  Level
	exists bool
	gen    uint64
	at     time.Time
}

type cachedPrincipals struct {
	ids []string
	gen uint64
	at  time.Time
}

// NumberResolver maps a public number within a scope (list, library) to a UUID.
type NumberResolver func(ctx context.Context, scopeID string, number int64) (string, error)

// New builds the engine.
func New(db *store.DB, b bus.Bus) *Engine {
	e := &Engine{db: db, st: &aclStore{db: db}, bus: b, now: time.Now}
	e.levels = map[levelKey]cachedLevel{}
	e.principals = map[string]cachedPrincipals{}
	return e
}

// Listen drops the cache when another instance changed rights, until ctx ends.
func (e *Engine) Listen(ctx context.Context) {
	msgs, cancel := e.bus.Subscribe(changedTopic)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-msgs:
			e.drop()
		}
	}
}

func (e *Engine) drop() {
	e.gen.Add(1)
	e.mu.Lock()
	e.levels = map[levelKey]cachedLevel{}
	e.principals = map[string]cachedPrincipals{}
	e.mu.Unlock()
}

// Invalidate drops cached levels here and on every other instance. Inside a
// transaction it waits for the commit (a rollback changes nothing).
func (e *Engine) Invalidate(ctx context.Context) {
	store.AfterCommit(ctx, func() {
		e.drop()
		if err := e.bus.Publish(context.WithoutCancel(ctx), changedTopic, []byte("1")); err != nil {
			slog.WarnContext(ctx, "publish acl change", "err", err)
		}
	})
}

func validID(id string) bool {
	if len(id) != 36 {
		return false
	}
	_, err := uuid.Parse(id)
	return err == nil
}

// Level is the effective level of p on ref: administrators have Delete on
// every existing resource; an unknown resource (or no caller) gives None.
func (e *Engine) Level(ctx context.Context, p *auth.Principal, ref Ref) (Level, error) {
	if p == nil || !validID(ref.ID) {
		return None, nil
	}
	exists, lvl, err := e.effective(ctx, p.UserID, ref.ID)
	if err != nil || !exists {
		return None, err
	}
	if p.IsAdmin {
		return Delete, nil
	}
	return lvl, nil
}

func (e *Engine) effective(ctx context.Context, userID, resourceID string) (bool, Level, error) {
	inTx := store.InTransaction(ctx)
	key := levelKey{userID, resourceID}
	gen := e.gen.Load()
	if !inTx {
		e.mu.RLock()
		c, ok := e.levels[key]
		e.mu.RUnlock()
		if ok && c.gen == gen && e.now().Sub(c.at) < cacheTTL {
			return c.exists, c.level, nil
		}
	}
	exists, lvl, err := e.st.effective(ctx, resourceID, userID)
	if err != nil {
		return false, None, err
	}
	if !inTx {
		e.mu.Lock()
		if len(e.levels) >= maxCached {
			e.levels = map[levelKey]cachedLevel{}
		}
		e.levels[key] = cachedLevel{level: lvl, exists: exists, gen: gen, at: e.now()}
		e.mu.Unlock()
	}
	return exists, lvl, nil
}

// Require checks that p has at least min on ref: fault.NotFound only when ref
// is not registered as a resource of its type, fault.Forbidden when it exists
// and p lacks the level (SPEC.md Errors 3, CONTRACT.md: 403 for an existing
// resource, 404 only for a missing one). Services whose resources outlive
// their registration (soft-deleted rows in the recycle bin) check their own
// row first.
func (e *Engine) Require(ctx context.Context, p *auth.Principal, ref Ref, min Level) error {
	lvl, err := e.Level(ctx, p, ref)
	if err != nil {
		return err
	}
	if lvl == None {
		ok, err := e.IsA(ctx, ref)
		if err != nil {
			return err
		}
		if !ok {
			return fault.NotFound(string(ref.Type))
		}
		return fault.Forbidden("%s right on this %s is required", min, ref.Type)
	}
	if lvl < min {
		return fault.Forbidden("%s right on this %s is required", min, ref.Type)
	}
	return nil
}

// IsA reports whether ref is registered with its type (an id of another
// type is not a resource of ref.Type).
func (e *Engine) IsA(ctx context.Context, ref Ref) (bool, error) {
	if !validID(ref.ID) {
		return false, nil
	}
	t, _, _, err := e.st.object(ctx, ref.ID)
	if store.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return t == ref.Type, nil
}

// Exists reports whether ref is registered.
func (e *Engine) Exists(ctx context.Context, ref Ref) (bool, error) {
	if !validID(ref.ID) {
		return false, nil
	}
	return e.st.exists(ctx, ref.ID)
}

// Register records a securable resource and its parent (nil for a root node)
// in the caller's transaction. New resources inherit.
func (e *Engine) Register(ctx context.Context, ref Ref, parent *Ref) error {
	if !ref.Type.Valid() || !validID(ref.ID) {
		return fmt.Errorf("register: bad resource %q %q", ref.Type, ref.ID)
	}
	p := ""
	if parent != nil {
		p = parent.ID
	}
	return e.st.register(ctx, ref, p)
}

// RegisterAll records resources of one parent in the caller's transaction,
// as Register does for each, in as few statements as the database allows.
func (e *Engine) RegisterAll(ctx context.Context, refs []Ref, parent *Ref) error {
	for _, ref := range refs {
		if !ref.Type.Valid() || !validID(ref.ID) {
			return fmt.Errorf("register: bad resource %q %q", ref.Type, ref.ID)
		}
	}
	p := ""
	if parent != nil {
		p = parent.ID
	}
	return e.st.registerAll(ctx, refs, p)
}

// Move gives ref a new parent; levels below it change, so the cache is dropped.
func (e *Engine) Move(ctx context.Context, ref Ref, parent *Ref) error {
	p := ""
	if parent != nil {
		p = parent.ID
	}
	if _, err := e.st.move(ctx, ref.ID, p); err != nil {
		return err
	}
	e.Invalidate(ctx)
	return e.rescope(ctx, ref)
}

// Forget removes resources and their explicit records (hard delete).
func (e *Engine) Forget(ctx context.Context, refs ...Ref) error {
	ids := make([]string, 0, len(refs))
	for _, r := range refs {
		if validID(r.ID) {
			ids = append(ids, r.ID)
		}
	}
	for len(ids) > 0 {
		n := min(len(ids), 500)
		if err := e.st.forget(ctx, ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	e.Invalidate(ctx)
	return nil
}

// IsAncestor reports whether ancestor is id itself or lies on id's parent chain
// (ignoring inheritance boundaries). Nodes use it to refuse cyclic moves.
func (e *Engine) IsAncestor(ctx context.Context, ancestor, id Ref) (bool, error) {
	return e.st.isDescendant(ctx, ancestor.ID, id.ID)
}

// SetInherits moves a resource between inheriting and isolated (SPEC.md
// "Item inheritance flag"). Breaking inheritance copies the parent's effective
// rights (per principal with a record along the parent's chain) as explicit
// records on ref; restoring deletes ref's explicit records.
func (e *Engine) SetInherits(ctx context.Context, ref Ref, inherit bool) error {
	return e.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		_, parent, cur, err := e.st.object(ctx, ref.ID)
		if store.IsNotFound(err) {
			return fault.NotFound(string(ref.Type))
		}
		if err != nil {
			return err
		}
		if cur == inherit {
			return nil
		}
		if inherit {
			if err := e.st.deleteEntriesOf(ctx, ref.ID); err != nil {
				return err
			}
		} else if parent != "" {
			grants, err := e.st.chainGrants(ctx, parent)
			if err != nil {
				return err
			}
			for _, g := range grants {
				if _, err := e.st.upsert(ctx, ref, g, true); err != nil {
					return err
				}
			}
		}
		if err := e.st.setInherits(ctx, ref.ID, inherit); err != nil {
			return err
		}
		action := audit.ACLBreak
		if inherit {
			action = audit.ACLRestore
		}
		audit.Record(ctx, audit.Entry{Action: action, ResourceType: string(ref.Type), ResourceID: ref.ID})
		e.Invalidate(ctx)
		return e.rescope(ctx, ref)
	})
}

// Inherits reports the inheritance flag of ref (fault.NotFound when unknown).
func (e *Engine) Inherits(ctx context.Context, ref Ref) (bool, error) {
	if !validID(ref.ID) {
		return false, fault.NotFound(string(ref.Type))
	}
	_, _, inh, err := e.st.object(ctx, ref.ID)
	if store.IsNotFound(err) {
		return false, fault.NotFound(string(ref.Type))
	}
	return inh, err
}

// Principals returns the user id followed by the ids of all its groups.
func (e *Engine) Principals(ctx context.Context, userID string) ([]string, error) {
	inTx := store.InTransaction(ctx)
	gen := e.gen.Load()
	if !inTx {
		e.mu.RLock()
		c, ok := e.principals[userID]
		e.mu.RUnlock()
		if ok && c.gen == gen && e.now().Sub(c.at) < cacheTTL {
			return c.ids, nil
		}
	}
	if !validID(userID) {
		return []string{userID}, nil
	}
	ids, err := e.st.principals(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !inTx {
		e.mu.Lock()
		if len(e.principals) >= maxCached {
			e.principals = map[string]cachedPrincipals{}
		}
		e.principals[userID] = cachedPrincipals{ids: ids, gen: gen, at: e.now()}
		e.mu.Unlock()
	}
	return ids, nil
}

// RegisterNumberResolver lets /permissions accept public numbers: lists
// register ListItem (scope = list id), libraries register File (scope = library id).
func (e *Engine) RegisterNumberResolver(t Type, fn func(ctx context.Context, scopeID string, number int64) (string, error)) {
	e.resolvers.Store(t, NumberResolver(fn))
}

func (e *Engine) resolver(t Type) (NumberResolver, bool) {
	v, ok := e.resolvers.Load(t)
	if !ok {
		return nil, false
	}
	return v.(NumberResolver), true
}

// ChildCount is the number of resources registered directly under ref.
func (e *Engine) ChildCount(ctx context.Context, ref Ref) (int, error) {
	return e.st.childCount(ctx, ref.ID)
}

// NodeLevels returns the caller's effective level on every node (one query;
// administrators get Delete everywhere). Nodes absent from the map give None.
func (e *Engine) NodeLevels(ctx context.Context, p *auth.Principal) (map[string]Level, error) {
	if p == nil {
		return map[string]Level{}, nil
	}
	lv, err := e.st.nodeLevels(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	if p.IsAdmin {
		for id := range lv {
			lv[id] = Delete
		}
	}
	return lv, nil
}

// ForgetTree removes ref and every resource registered below it (a purged
// list with its items and attachments, a library with its files) with their
// explicit records, in the caller's transaction.
func (e *Engine) ForgetTree(ctx context.Context, ref Ref) error {
	if !validID(ref.ID) {
		return nil
	}
	if err := e.st.forgetTree(ctx, ref.ID); err != nil {
		return err
	}
	e.Invalidate(ctx)
	return nil
}
