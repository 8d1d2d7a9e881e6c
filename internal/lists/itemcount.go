package lists

import (
	"context"
	"fmt"

	"coreportal/internal/store"
)

// Each list's number of items is kept in list_item_counts by triggers on its
// item table, so that the count of an unfiltered listing (totalInView, and the
// total without a filter) is a read of a few rows instead of a count of the
// whole table. Items are deleted from the table when they go to the recycle
// bin and inserted again on restore, so the triggers see every change. On
// PostgreSQL a statement-level trigger adds the statement's row count to the
// shard of its backend (migration 0203); on SQLite, with its single writer,
// row triggers keep one row.

// installCounter creates the counting triggers of a list's item table and sets
// its count from the table, unless a count is there already. It runs in a
// transaction that first locks out item writes until commit (PostgreSQL: the
// table lock; SQLite: the single writer), so no write is missed or counted
// twice.
func (s *Store) installCounter(ctx context.Context, l *List) error {
	// the id is written into the trigger's SQL text: only the canonical form
	if id, ok := store.CanonicalUUID(l.ID); !ok || id != l.ID {
		return fmt.Errorf("install item counter: unexpected list id %q", l.ID)
	}
	t := safeIdent(l.Table)
	w := s.db.W(ctx)
	if s.db.Dialect == store.Postgres {
		// first, before any snapshot: a repeatable-read transaction would
		// otherwise count from a snapshot older than the writes it waited for
		if _, err := w.ExecContext(ctx, "LOCK TABLE "+t+" IN SHARE ROW EXCLUSIVE MODE"); err != nil {
			return fmt.Errorf("lock items of list %s: %w", l.ID, err)
		}
	}
	// concurrent first listings of an older list queue here: the first installs
	if _, ok, err := s.itemCount(ctx, l.ID); err != nil || ok {
		return err
	}
	var stmts []string
	if s.db.Dialect == store.Postgres {
		fn := "list_items_counted('" + l.ID + "')"
		stmts = []string{
			"CREATE OR REPLACE TRIGGER items_counted_ins AFTER INSERT ON " + t + " REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION " + fn,
			"CREATE OR REPLACE TRIGGER items_counted_del AFTER DELETE ON " + t + " REFERENCING OLD TABLE AS old_items FOR EACH STATEMENT EXECUTE FUNCTION " + fn,
		}
	} else {
		upsert := func(d string) string {
			return "INSERT INTO list_item_counts (list_id, shard, n) VALUES ('" + l.ID + "', 0, " + d +
				") ON CONFLICT (list_id, shard) DO UPDATE SET n = n + " + d + "; END"
		}
		stmts = []string{
			"CREATE TRIGGER IF NOT EXISTS " + t + "_counted_ins AFTER INSERT ON " + t + " BEGIN " + upsert("1"),
			"CREATE TRIGGER IF NOT EXISTS " + t + "_counted_del AFTER DELETE ON " + t + " BEGIN " + upsert("-1"),
		}
	}
	for _, q := range stmts {
		if _, err := w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("install item counter of list %s: %w", l.ID, err)
		}
	}
	if _, err := w.ExecContext(ctx, "DELETE FROM list_item_counts WHERE list_id = ?", l.ID); err != nil {
		return fmt.Errorf("reset item count of list %s: %w", l.ID, err)
	}
	if _, err := w.ExecContext(ctx, "INSERT INTO list_item_counts (list_id, shard, n) SELECT ?, 0, count(*) FROM "+t, l.ID); err != nil {
		return fmt.Errorf("set item count of list %s: %w", l.ID, err)
	}
	return nil
}

// itemCount reads a list's number of items; ok is false when the list is not
// counted yet (created before the counters existed).
func (s *Store) itemCount(ctx context.Context, listID string) (n int, ok bool, err error) {
	var shards int
	var sum *int64
	err = s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*), sum(n) FROM list_item_counts WHERE list_id = ?", listID).Scan(&shards, &sum)
	if err != nil {
		return 0, false, fmt.Errorf("read item count of list %s: %w", listID, err)
	}
	if shards == 0 || sum == nil {
		return 0, false, nil
	}
	return int(*sum), true, nil
}

// itemCount is the number of items of a list, installing its counter on first
// use for lists that predate it.
func (s *Service) itemCount(ctx context.Context, l *List) (int, error) {
	n, ok, err := s.st.itemCount(ctx, l.ID)
	if err != nil || ok {
		return n, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		return s.st.installCounter(ctx, l)
	})
	if err != nil {
		return 0, err
	}
	if n, ok, err = s.st.itemCount(ctx, l.ID); err == nil && !ok {
		err = fmt.Errorf("item count of list %s missing after install", l.ID)
	}
	return n, err
}
