package lists

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"coreportal/internal/field"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// qCondition is the SQL condition of a listing's q: the items whose text
// contains q, case-insensitively. Searchable lists ask the search index (its
// entries of the list's items carry the display text of every field, kept in
// step in the saving transaction); a list with searchEnabled=false has no
// entries, so q compares its text columns (lower-cased) directly.
func (s *Service) qCondition(sc *schema, q string) (string, []any) {
	if s.index != nil && sc.list.SearchEnabled {
		return search.ItemsMatching(sc.list.ID, q)
	}
	p := "%" + likeEscape(field.Lower(q)) + "%"
	var parts []string
	var args []any
	for _, f := range sc.fields {
		if isCreator(f) { // the creator's name, from users
			cond, cargs, err := field.MustOf(f).Filter(f, field.OpContains, field.Operand{Value: q})
			if err == nil {
				parts = append(parts, cond)
				args = append(args, cargs...)
			}
			continue
		}
		if f.Col == 0 || f.ColName != "" {
			continue
		}
		var expr string
		switch f.Type {
		case field.Text, field.MultilineText:
			expr = field.Fold(safeIdent(f.Column()))
		case field.Choice:
			expr = field.ChoiceFrame(safeIdent(f.Column()))
		case field.HTMLText, field.Link:
			expr = safeIdent(f.CI())
		case field.Lookup:
			// never the displays of lookup targets: they are another list's
			// text (hidden from some callers, and the search index leaves
			// them out as well)
			continue
		case field.Person:
			// the displays: the subjects whose name contains q
			if cond, a, err := field.MustOf(f).Filter(f, field.OpContains, field.Operand{Value: q}); err == nil {
				parts = append(parts, "("+cond+")")
				args = append(args, a...)
			}
			continue
		default:
			continue
		}
		parts = append(parts, expr+" LIKE ? ESCAPE '\\'")
		args = append(args, p)
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// leanDone remembers the item tables already checked by leanTable.
var (
	leanDone sync.Map
	leanMu   sync.Mutex
)

// leanTable migrates an item table made before rows were lean, in place, on
// the first load of its list: the search_text copy goes (q reads the search
// index; the list's entries are rebuilt once so that none is missing). It
// runs outside transactions; a failure is logged and tried again on a later
// load (the column has a default, so writes without it still work). The
// lower-cased copies of text and choice values and the key lists of person
// and lookup values go the same way (dropStaleShadows). First of all the
// system columns become compact (leanSystemColumns): every read of the table
// depends on their layout, so its failure fails the load (and is tried again
// on the next one).
func (s *Service) leanTable(ctx context.Context, sc *schema) error {
	if store.InTransaction(ctx) {
		return nil
	}
	key := s.db.Dialect.String() + "/" + sc.list.Table
	if _, done := leanDone.Load(key); done {
		return nil
	}
	leanMu.Lock() // one migration at a time: concurrent first loads would race on the same DDL
	defer leanMu.Unlock()
	if _, done := leanDone.Load(key); done {
		return nil
	}
	if changed, err := s.leanSystemColumns(ctx, sc); err != nil {
		return err
	} else if changed {
		slog.InfoContext(ctx, "item table migrated: compact system columns, created_by composed from the row", "list", sc.list.ID)
	}
	has, err := s.st.hasColumn(ctx, sc.list.Table, "search_text")
	if err != nil {
		slog.WarnContext(ctx, "lean item table", "list", sc.list.ID, "err", err)
		return nil
	}
	if has {
		if s.index != nil && sc.list.SearchEnabled {
			if err := s.completeIndex(ctx, sc); err != nil {
				slog.WarnContext(ctx, "lean item table: index the list's items", "list", sc.list.ID, "err", err)
				return nil
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+safeIdent(sc.list.Table)+" DROP COLUMN search_text"); err != nil {
			slog.WarnContext(ctx, "lean item table: drop search_text", "list", sc.list.ID, "err", err)
			return nil
		}
		slog.InfoContext(ctx, "item table migrated: search_text dropped", "list", sc.list.ID)
	}
	changed, err := s.dropStaleShadows(ctx, sc)
	if err != nil {
		slog.WarnContext(ctx, "lean item table: drop shadow columns", "list", sc.list.ID, "err", err)
		return nil
	}
	if changed {
		slog.InfoContext(ctx, "item table migrated: shadow columns dropped, folded indexes made", "list", sc.list.ID)
	}
	leanDone.Store(key, true)
	return nil
}

// completeIndex rebuilds a list's index entries when some of its items have none.
func (s *Service) completeIndex(ctx context.Context, sc *schema) error {
	var entries int
	if err := s.db.Q(ctx).QueryRowContext(ctx, search.ItemEntriesCount, sc.list.ID).Scan(&entries); err != nil {
		return fmt.Errorf("index entries of list %s: %w", sc.list.ID, err)
	}
	n, err := s.itemCount(ctx, sc.list)
	if err != nil || n == entries {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return s.reindexList(ctx, sc) })
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
