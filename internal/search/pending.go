package search

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"coreportal/internal/store"
)

// pendingMergeEvery is how often the worker merges the pending list of the
// full-text GIN index on PostgreSQL.
const pendingMergeEvery = 2 * time.Second

// MergePending merges the pending list of the full-text GIN index into the
// index at a steady pace until ctx ends (PostgreSQL only; the worker runs it).
// New entries land in that list; when it passes gin_pending_list_limit
// (4 MB), the insert that finds it full merges it inside a user's save: a
// 1-2 s stall and 50 MB of WAL every few thousand saves (bench/README), and
// until then every search scans the list. Autovacuum merges it only after
// 20 % of the table is new. Merged every two seconds, the list stays small.
func (s *Service) MergePending(ctx context.Context) {
	if s.db.Dialect != store.Postgres {
		return
	}
	t := time.NewTicker(pendingMergeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.st.mergePending(ctx); err != nil && ctx.Err() == nil {
			slog.WarnContext(ctx, "merge the search index's pending list", "err", err)
		}
		s.st.foldAll(ctx) // and fold the entries saved since into the count bitmaps
	}
}

// mergePending runs one merge and reports how many pending-list pages it
// merged.
func (s *indexStore) mergePending(ctx context.Context) (int64, error) {
	var pages int64
	err := s.db.W(ctx).QueryRowContext(ctx, "SELECT gin_clean_pending_list(CAST('search_entries_tsv' AS regclass))").Scan(&pages)
	if err != nil {
		return 0, fmt.Errorf("merge pending list: %w", err)
	}
	return pages, nil
}
