package lists

import (
	"context"
	"fmt"
	"log/slog"

	"coreportal/internal/acl"
	"coreportal/internal/bus"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// ItemTablesStep is the number of the migration that brings every item table
// to the current layout. Item tables are named by data (one per list), so the
// step is Go code beside the SQL files; its number belongs to no file.
const ItemTablesStep = 204

// MigrationSteps are the migrations of item tables, run by store.Migrate in
// their place in the numbered sequence (coreportal migrate and every start).
func MigrationSteps() []store.Step {
	return []store.Step{{Version: ItemTablesStep, Name: "0204_item_tables_current_layout", Run: migrateItemTables}}
}

// migrateItemTables brings the item table of every list (in the recycle bin
// or not) to the current layout, in the migration's transaction:
//   - system columns compact (migrateSystemColumns): guid, created_by and
//     updated_by 16-byte BLOBs on SQLite, created_at and updated_at Unix
//     milliseconds, the created_by system field composed from the row;
//   - no search_text column: q reads the search index, so a searchable list
//     whose items lack index entries is indexed again first;
//   - no shadow columns (migrateShadowColumns): person and lookup values are
//     references, text and choice values are compared folded.
//
// A table already in the current layout is left as it is.
func migrateItemTables(ctx context.Context, db *store.DB) error {
	engine := acl.New(db, bus.NewMemory())
	s := NewService(db, engine, nil)
	s.UseIndex(search.New(db, engine))
	ids, err := s.st.allListIDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l, err := s.st.listAny(ctx, id)
		if err != nil {
			return err
		}
		fields, err := s.st.fields(ctx, id)
		if err != nil {
			return err
		}
		s.withDisplays(l, fields)
		if err := s.migrateItemTable(ctx, newSchema(l, fields)); err != nil {
			return fmt.Errorf("item table of list %s: %w", id, err)
		}
	}
	return nil
}

// migrateItemTable brings one item table to the current layout.
func (s *Service) migrateItemTable(ctx context.Context, sc *schema) error {
	if changed, err := s.migrateSystemColumns(ctx, sc); err != nil {
		return err
	} else if changed {
		slog.InfoContext(ctx, "item table migrated: compact system columns, created_by composed from the row", "list", sc.list.ID)
	}
	has, err := s.st.hasColumn(ctx, sc.list.Table, "search_text")
	if err != nil {
		return err
	}
	if has {
		if s.index != nil && sc.list.SearchEnabled {
			if err := s.completeIndex(ctx, sc); err != nil {
				return fmt.Errorf("index the list's items: %w", err)
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+safeIdent(sc.list.Table)+" DROP COLUMN search_text"); err != nil {
			return fmt.Errorf("drop search_text: %w", err)
		}
		slog.InfoContext(ctx, "item table migrated: search_text dropped", "list", sc.list.ID)
	}
	changed, err := s.migrateShadowColumns(ctx, sc)
	if err != nil {
		return fmt.Errorf("drop shadow columns: %w", err)
	}
	if changed {
		slog.InfoContext(ctx, "item table migrated: shadow columns dropped, folded indexes made", "list", sc.list.ID)
	}
	return nil
}

// completeIndex rebuilds a list's index entries when some of its items have none.
func (s *Service) completeIndex(ctx context.Context, sc *schema) error {
	entries, err := search.ItemEntries(ctx, s.db, sc.list.ID)
	if err != nil {
		return err
	}
	n, err := s.itemCount(ctx, sc.list)
	if err != nil || n == entries {
		return err
	}
	return s.reindexList(ctx, sc)
}

// hasColumn reports whether a table has a column.
func (s *Store) hasColumn(ctx context.Context, table, col string) (bool, error) {
	q := "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?"
	if s.db.Dialect == store.SQLite {
		q = "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?"
	}
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, q, table, col).Scan(&n); err != nil {
		return false, fmt.Errorf("columns of %s: %w", table, err)
	}
	return n > 0, nil
}
