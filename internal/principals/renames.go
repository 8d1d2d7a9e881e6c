package principals

import (
	"context"
	"fmt"
	"sync"

	"coreportal/internal/store"
)

// Renames: person values show current names at read time, but the search
// index holds the names of the people an item or file names as text. A
// service that changes a user's display name or a group's name tells the
// hooks of its database (Renamed, inside its transaction); the search wiring
// queues a job there that re-indexes what names the subject.

var (
	renameMu    sync.Mutex
	renameHooks = map[*store.DB][]func(ctx context.Context, id string) error{}
)

// OnRenamed adds a hook called with the subject's id when a user's display
// name or a group's name changes on db (wiring time).
func OnRenamed(db *store.DB, fn func(ctx context.Context, id string) error) {
	renameMu.Lock()
	defer renameMu.Unlock()
	renameHooks[db] = append(renameHooks[db], fn)
}

// Renamed runs the rename hooks of db for subject id in the caller's
// transaction: a failed hook fails the rename.
func Renamed(ctx context.Context, db *store.DB, id string) error {
	renameMu.Lock()
	hooks := renameHooks[db]
	renameMu.Unlock()
	for _, fn := range hooks {
		if err := fn(ctx, id); err != nil {
			return fmt.Errorf("after renaming %s: %w", id, err)
		}
	}
	return nil
}
