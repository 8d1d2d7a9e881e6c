package lists

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"coreportal/internal/field"
	"coreportal/internal/store"
)

// foldedTypes are the field types whose lower-cased copy (f_n_ci) gave way
// to comparisons through field.Fold.
func foldedType(typ string) bool {
	return typ == field.Text || typ == field.MultilineText || typ == field.Choice
}

// dropFoldCopies migrates an item table made before text and choice values
// lost their lower-cased copies, in place: the indexes on the copies go,
// then the copies themselves (on PostgreSQL the value columns become
// COLLATE "C" in the same statement, which rebuilds no rows), and the
// indexes of the list's views are made again on the folded expressions.
// Ad-hoc indexes come back on their next use. It returns whether it changed
// anything.
func (s *Service) dropFoldCopies(ctx context.Context, sc *schema) (bool, error) {
	cols, err := s.st.columns(ctx, sc.list.Table)
	if err != nil {
		return false, err
	}
	var stale []*field.Def
	for _, f := range sc.fields {
		if f.Col > 0 && f.ColName == "" && foldedType(f.Type) && cols[f.CI()] {
			stale = append(stale, f)
		}
	}
	if len(stale) == 0 {
		return false, nil
	}
	l := sc.list
	for _, f := range stale {
		if err := s.st.dropFilterIndexes(ctx, l, f.CI()); err != nil {
			return false, err
		}
		if err := s.st.dropColumnIndexes(ctx, l, f.CI()); err != nil {
			return false, err
		}
	}
	t := safeIdent(l.Table)
	if s.db.Dialect == store.Postgres {
		var parts []string
		for _, f := range stale {
			parts = append(parts, "ALTER COLUMN "+safeIdent(f.Column())+` TYPE TEXT COLLATE "C"`, "DROP COLUMN "+safeIdent(f.CI()))
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+t+" "+strings.Join(parts, ", ")); err != nil {
			return false, fmt.Errorf("drop lower-cased copies of %s: %w", l.Table, err)
		}
	} else {
		err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			for _, f := range stale {
				if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+t+" DROP COLUMN "+safeIdent(f.CI())); err != nil {
					return fmt.Errorf("drop %s of %s: %w", f.CI(), l.Table, err)
				}
			}
			return nil
		})
		if err != nil {
			return false, err
		}
	}
	s.adhoc.forget(l.Table)
	views, err := s.st.views(ctx, l.ID)
	if err != nil {
		return true, err
	}
	for _, v := range views {
		if err := s.viewIndexes(ctx, sc, v.Config); err != nil {
			return true, fmt.Errorf("indexes of view %s: %w", v.ID, err)
		}
	}
	return true, nil
}

// columns lists the columns of a table.
func (s *Store) columns(ctx context.Context, table string) (map[string]bool, error) {
	q := "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?"
	if s.db.Dialect == store.SQLite {
		q = "SELECT name FROM pragma_table_info(?)"
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", table, err)
		}
		out[c] = true
	}
	return out, rows.Err()
}

// logFold reports a migrated table.
func logFold(ctx context.Context, sc *schema) {
	slog.InfoContext(ctx, "item table migrated: lower-cased copies dropped, folded indexes made", "list", sc.list.ID)
}
