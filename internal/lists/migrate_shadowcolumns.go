package lists

import (
	"context"
	"fmt"
	"strings"

	"coreportal/internal/field"
	"coreportal/internal/store"
)

// foldedType reports the field types compared through field.Fold, which
// keep no lower-cased copy (f_n_ci).
func foldedType(typ string) bool {
	return typ == field.Text || typ == field.MultilineText || typ == field.Choice
}

// migrateShadowColumns removes the columns an item table keeps beside its
// field values that the field types no longer declare: person and lookup
// values become references (compactRefs), the lower-cased copies of text and
// choice values (f_n_ci) and the key lists of person and lookup values
// (f_n_k) go with the indexes on them (on PostgreSQL the text and choice
// value columns become COLLATE "C" in the same statement, which rewrites no
// rows), and the indexes of the list's views are made again on the folded
// expressions. Ad-hoc indexes come back on their next use. It runs in the
// caller's transaction and returns whether it changed anything.
func (s *Service) migrateShadowColumns(ctx context.Context, sc *schema) (bool, error) {
	cols, err := s.st.columns(ctx, sc.list.Table)
	if err != nil {
		return false, err
	}
	var stale, recollate []string
	for _, f := range sc.fields {
		if f.Col == 0 || f.ColName != "" {
			continue
		}
		declared := map[string]bool{}
		for _, c := range field.MustOf(f).Columns(s.db.Dialect, f) {
			declared[c[0]] = true
		}
		for _, c := range []string{f.CI(), f.Keys()} {
			if cols[c] && !declared[c] {
				stale = append(stale, c)
				if c == f.CI() && foldedType(f.Type) {
					recollate = append(recollate, f.Column())
				}
			}
		}
	}
	if len(stale) == 0 {
		return false, nil
	}
	if err := s.compactRefs(ctx, sc, cols); err != nil {
		return false, err
	}
	l := sc.list
	for _, c := range stale {
		if err := s.st.dropFilterIndexes(ctx, l, c); err != nil {
			return false, err
		}
		if err := s.st.dropColumnIndexes(ctx, l, c); err != nil {
			return false, err
		}
	}
	t := safeIdent(l.Table)
	if s.db.Dialect == store.Postgres {
		var parts []string
		for _, c := range recollate {
			parts = append(parts, "ALTER COLUMN "+safeIdent(c)+` TYPE TEXT COLLATE "C"`)
		}
		for _, c := range stale {
			parts = append(parts, "DROP COLUMN "+safeIdent(c))
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+t+" "+strings.Join(parts, ", ")); err != nil {
			return false, fmt.Errorf("drop shadow columns of %s: %w", l.Table, err)
		}
	} else {
		err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			for _, c := range stale {
				if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+t+" DROP COLUMN "+safeIdent(c)); err != nil {
					return fmt.Errorf("drop %s of %s: %w", c, l.Table, err)
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

// compactRefs rewrites person and lookup values stored as a JSON array of
// entries with their displays (beside a lower-cased copy f_n_ci, which marks
// that layout) into references only (field/refs.go); migrateShadowColumns
// drops the copy afterwards.
func (s *Service) compactRefs(ctx context.Context, sc *schema, cols map[string]bool) error {
	for _, f := range sc.fields {
		if !isRefColumn(f) || !cols[f.CI()] {
			continue
		}
		if err := s.compactColumn(ctx, sc.list.Table, f); err != nil {
			return err
		}
	}
	return nil
}

// isRefColumn reports whether f stores person or lookup references in a
// column of its own (not created_by: the row's created_by column holds it).
func isRefColumn(f *field.Def) bool {
	return (f.Type == field.Person || f.Type == field.Lookup) && f.Col != 0 && f.ColName == "" && f.InternalName != sysCreatedBy
}

// compactColumn rewrites the JSON entries of one person or lookup column
// into references, refBatch rows at a time, each batch in its own
// transaction or in the caller's.
func (s *Service) compactColumn(ctx context.Context, table string, f *field.Def) error {
	t, col := safeIdent(table), safeIdent(f.Column())
	var last int64
	for {
		type row struct {
			id  int64
			val string
		}
		var batch []row
		rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT id, "+col+" FROM "+t+" WHERE id > ? AND "+col+" LIKE '[%' ORDER BY id LIMIT ?", last, refBatch)
		if err != nil {
			return fmt.Errorf("compact %s of %s: %w", col, t, err)
		}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.val); err != nil {
				rows.Close()
				return fmt.Errorf("compact %s of %s: %w", col, t, err)
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("compact %s of %s: %w", col, t, err)
		}
		if len(batch) == 0 {
			return nil
		}
		err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			for _, r := range batch {
				v, _ := field.CompactValue(f, r.val)
				var arg any = v
				if v == "" {
					arg = nil
				}
				if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE "+t+" SET "+col+" = ? WHERE id = ?", arg, r.id); err != nil {
					return fmt.Errorf("compact %s of %s: %w", col, t, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		last = batch[len(batch)-1].id
	}
}

const refBatch = 1000

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
