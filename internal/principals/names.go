// Package principals keeps the display names of users and groups that person
// values and system user columns show: item rows store only the subjects'
// ids, and every read resolves them here.
//
// The cache is process-wide, one per database, bounded (maxEntries; when full
// it is emptied and refilled by the next reads) and each entry lives at most
// TTL. A rename or removal on this instance drops the entry at once (Changed,
// called by the users and groups stores after they write). Users: every
// instance drops it too when the users service's change reaches it on the bus
// (users.changed, the topic that already invalidates its account cache).
// Groups have no bus event: other instances show a group's new name at most
// TTL later.
package principals

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// TTL is how long a resolved name is trusted.
const TTL = 30 * time.Second

const maxEntries = 50_000

// Kinds of subjects.
const (
	User  = "user"
	Group = "group"
)

// Key names one subject.
type Key struct {
	Type string // User or Group
	ID   string // lower-case UUID
}

type entry struct {
	name   string
	exists bool
	at     time.Time
}

// Names resolves subject display names for one database.
type Names struct {
	db  *store.DB
	now func() time.Time
	mu  sync.Mutex
	m   map[Key]entry
}

var (
	allMu sync.Mutex
	all   = map[*store.DB]*Names{}
)

// For returns the cache of a database (one per process and database).
func For(db *store.DB) *Names {
	allMu.Lock()
	defer allMu.Unlock()
	n, ok := all[db]
	if !ok {
		n = &Names{db: db, now: time.Now, m: map[Key]entry{}}
		all[db] = n
	}
	return n
}

// Forget drops a subject's entry (after a rename, deactivation or removal).
// Users and groups never share an id, so the id alone is enough.
func (n *Names) Forget(id string) {
	n.mu.Lock()
	delete(n.m, Key{User, id})
	delete(n.m, Key{Group, id})
	n.mu.Unlock()
}

// Lookup returns the display names of the given subjects; a subject that does
// not exist is absent from the map.
func (n *Names) Lookup(ctx context.Context, keys []Key) (map[Key]string, error) {
	out := make(map[Key]string, len(keys))
	var missUsers, missGroups []any
	seen := map[Key]bool{}
	now := n.now()
	n.mu.Lock()
	for _, k := range keys {
		if seen[k] {
			continue
		}
		if _, err := uuid.Parse(k.ID); err != nil {
			continue // never a subject (and PostgreSQL would refuse the query)
		}
		seen[k] = true
		if e, ok := n.m[k]; ok && now.Sub(e.at) < TTL {
			if e.exists {
				out[k] = e.name
			}
			continue
		}
		if k.Type == Group {
			missGroups = append(missGroups, k.ID)
		} else {
			missUsers = append(missUsers, k.ID)
		}
	}
	n.mu.Unlock()
	if len(missUsers) == 0 && len(missGroups) == 0 {
		return out, nil
	}
	found := map[Key]string{}
	if err := n.read(ctx, User, "SELECT id, display_name FROM users WHERE id IN ", missUsers, found); err != nil {
		return nil, err
	}
	if err := n.read(ctx, Group, "SELECT id, name FROM groups WHERE id IN ", missGroups, found); err != nil {
		return nil, err
	}
	// a transaction may see rows others do not (or not yet): use, never keep
	keep := !store.InTransaction(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	if keep && len(n.m)+len(missUsers)+len(missGroups) > maxEntries {
		n.m = make(map[Key]entry, len(missUsers)+len(missGroups))
	}
	record := func(typ string, ids []any) {
		for _, id := range ids {
			k := Key{typ, id.(string)}
			name, ok := found[k]
			if ok {
				out[k] = name
			}
			if keep {
				n.m[k] = entry{name: name, exists: ok, at: now}
			}
		}
	}
	record(User, missUsers)
	record(Group, missGroups)
	return out, nil
}

// read loads names of ids (chunks of 500) into found.
func (n *Names) read(ctx context.Context, typ, q string, ids []any, found map[Key]string) error {
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		rows, err := n.db.Q(ctx).QueryContext(ctx, q+"("+store.Placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return fmt.Errorf("%s names: %w", typ, err)
		}
		for rows.Next() {
			var id, name string
			if err := rows.Scan(&id, &name); err != nil {
				rows.Close()
				return fmt.Errorf("%s names: %w", typ, err)
			}
			found[Key{typ, id}] = name
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("%s names: %w", typ, err)
		}
	}
	return nil
}

// Users returns the display names of users by id (absent when missing).
func (n *Names) Users(ctx context.Context, ids []string) (map[string]string, error) {
	keys := make([]Key, 0, len(ids))
	for _, id := range ids {
		keys = append(keys, Key{User, id})
	}
	m, err := n.Lookup(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k.ID] = v
	}
	return out, nil
}

// Changed drops a subject's name at once and again when the caller's
// transaction commits (a reader between the two could cache the old name).
// The users and groups stores call it after every write of a name or removal.
func Changed(ctx context.Context, db *store.DB, id string) {
	n := For(db)
	n.Forget(id)
	store.AfterCommit(ctx, func() { n.Forget(id) })
}
