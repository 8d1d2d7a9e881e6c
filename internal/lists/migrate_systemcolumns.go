package lists

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"coreportal/internal/store"
)

// migrateSystemColumns gives an item table whose created_at is stored as text
// the compact system columns of rowcols.go: guid, created_by and updated_by
// 16-byte BLOBs (SQLite; PostgreSQL has uuid already), created_at and
// updated_at Unix milliseconds, and no stored column (nor lower-cased copy)
// for the created_by system field: its value is composed from the row's
// created_by. SQLite cannot change a column's type, so the table is rebuilt
// (new table, rows copied with conversion, old one dropped, new one renamed,
// its indexes, counting triggers and AUTOINCREMENT high-water mark carried
// over); PostgreSQL alters the columns under an exclusive lock. It runs in
// the caller's transaction (the migration's) and reports whether it changed
// anything.
func (s *Service) migrateSystemColumns(ctx context.Context, sc *schema) (bool, error) {
	var creatorCols []string
	for _, f := range sc.fields {
		if isCreator(f) && f.Col > 0 {
			col := fmt.Sprintf("f_%d", f.Col)
			creatorCols = append(creatorCols, col, col+"_ci", col+"_k")
		}
	}
	old, err := s.st.oldSystemColumns(ctx, sc.list.Table)
	if err != nil || !old {
		return false, err
	}
	changed := false
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if s.db.Dialect == store.Postgres {
			if _, err := s.db.W(ctx).ExecContext(ctx, "LOCK TABLE "+safeIdent(sc.list.Table)+" IN ACCESS EXCLUSIVE MODE"); err != nil {
				return fmt.Errorf("lock %s: %w", sc.list.Table, err)
			}
		}
		changed = true
		if s.db.Dialect == store.Postgres {
			return s.st.migrateSystemColumnsPG(ctx, sc.list, creatorCols)
		}
		return s.st.rebuildItemTableSQLite(ctx, sc.list, creatorCols)
	})
	if err != nil {
		return false, fmt.Errorf("compact system columns of %s: %w", sc.list.Table, err)
	}
	if changed {
		s.adhoc.forget(sc.list.Table)
		// a rebuilt (SQLite) or rewritten (PostgreSQL) table has no planner
		// statistics; without them SQLite may pick other plans
		if _, err := s.db.W(ctx).ExecContext(ctx, "ANALYZE "+safeIdent(sc.list.Table)); err != nil {
			slog.WarnContext(ctx, "analyze migrated item table", "list", sc.list.ID, "err", err)
		}
	}
	return changed, nil
}

// oldSystemColumns reports whether created_at is still stored as text.
func (s *Store) oldSystemColumns(ctx context.Context, table string) (bool, error) {
	q := "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND column_name = 'created_at'"
	if s.db.Dialect == store.SQLite {
		q = "SELECT type FROM pragma_table_info(?) WHERE name = 'created_at'"
	}
	var typ string
	err := s.db.Q(ctx).QueryRowContext(ctx, q, table).Scan(&typ)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("layout of %s: %w", table, err)
	}
	return strings.EqualFold(typ, "text"), nil
}

// msFromText is the SQL converting a stored DateTimeLayout stamp to Unix milliseconds.
func msFromText(d store.Dialect, col string) string {
	if d == store.Postgres {
		return "(extract(epoch FROM " + col + "::timestamptz) * 1000)::bigint"
	}
	return "CAST(round(unixepoch(" + col + ", 'subsec') * 1000) AS INTEGER)"
}

func (s *Store) migrateSystemColumnsPG(ctx context.Context, l *List, drop []string) error {
	cols, err := s.columns(ctx, l.Table)
	if err != nil {
		return err
	}
	parts := []string{
		"ALTER COLUMN created_at TYPE BIGINT USING " + msFromText(store.Postgres, "created_at"),
		"ALTER COLUMN updated_at TYPE BIGINT USING " + msFromText(store.Postgres, "updated_at"),
	}
	for _, c := range drop {
		if cols[c] {
			parts = append(parts, "DROP COLUMN "+safeIdent(c)) // its indexes go with it
		}
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "ALTER TABLE "+safeIdent(l.Table)+" "+strings.Join(parts, ", ")); err != nil {
		return fmt.Errorf("alter system columns: %w", err)
	}
	return nil
}

type sqliteColumn struct {
	name, typ string
	notNull   bool
	dflt      sql.NullString
}

var systemColumns = map[string]bool{"id": true, "guid": true, "created_by": true, "updated_by": true,
	"created_at": true, "updated_at": true, "inherits_permissions": true}

func (s *Store) rebuildItemTableSQLite(ctx context.Context, l *List, drop []string) error {
	w := s.db.W(ctx)
	t := safeIdent(l.Table)
	tmp := safeIdent(l.Table + "_migrating")
	rows, err := w.QueryContext(ctx, "SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info(?) ORDER BY cid", l.Table)
	if err != nil {
		return fmt.Errorf("columns of %s: %w", l.Table, err)
	}
	var keep []sqliteColumn
	dropped := map[string]bool{}
	for _, c := range drop {
		dropped[c] = true
	}
	for rows.Next() {
		var c sqliteColumn
		if err := rows.Scan(&c.name, &c.typ, &c.notNull, &c.dflt); err != nil {
			rows.Close()
			return fmt.Errorf("columns of %s: %w", l.Table, err)
		}
		if !systemColumns[c.name] && !dropped[c.name] {
			keep = append(keep, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("columns of %s: %w", l.Table, err)
	}
	defs := []string{"id INTEGER PRIMARY KEY AUTOINCREMENT", "guid BLOB NOT NULL UNIQUE", "created_by BLOB", "updated_by BLOB",
		"created_at INTEGER NOT NULL", "updated_at INTEGER NOT NULL", "inherits_permissions BOOLEAN NOT NULL DEFAULT TRUE"}
	names := []string{"id", "guid", "created_by", "updated_by", "created_at", "updated_at", "inherits_permissions"}
	sel := []string{"id", "uuid_blob(guid)", "uuid_blob(created_by)", "uuid_blob(updated_by)",
		msFromText(store.SQLite, "created_at"), msFromText(store.SQLite, "updated_at"), "inherits_permissions"}
	for _, c := range keep {
		def := safeIdent(c.name) + " " + c.typ
		if c.dflt.Valid {
			def += " DEFAULT " + c.dflt.String
		}
		if c.notNull && c.dflt.Valid {
			def += " NOT NULL"
		}
		defs = append(defs, def)
		names = append(names, safeIdent(c.name))
		sel = append(sel, safeIdent(c.name))
	}
	// what the table's drop takes along: indexes (but those on dropped
	// columns), counting triggers, the AUTOINCREMENT high-water mark
	var recreate []string
	rows, err = w.QueryContext(ctx, "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type", l.Table)
	if err != nil {
		return fmt.Errorf("indexes of %s: %w", l.Table, err)
	}
	for rows.Next() {
		var typ, name, ddl string
		if err := rows.Scan(&typ, &name, &ddl); err != nil {
			rows.Close()
			return fmt.Errorf("indexes of %s: %w", l.Table, err)
		}
		if typ == "index" && mentionsAny(ddl, drop) {
			continue
		}
		recreate = append(recreate, ddl)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("indexes of %s: %w", l.Table, err)
	}
	var seq sql.NullInt64
	if err := w.QueryRowContext(ctx, "SELECT max(seq) FROM sqlite_sequence WHERE name = ?", l.Table).Scan(&seq); err != nil {
		return fmt.Errorf("sequence of %s: %w", l.Table, err)
	}
	stmts := []string{
		"DROP TABLE IF EXISTS " + tmp,
		"CREATE TABLE " + tmp + " (\n  " + strings.Join(defs, ",\n  ") + "\n)",
		"INSERT INTO " + tmp + " (" + strings.Join(names, ", ") + ") SELECT " + strings.Join(sel, ", ") + " FROM " + t,
		"DROP TABLE " + t,
		"ALTER TABLE " + tmp + " RENAME TO " + t,
	}
	for _, q := range stmts {
		if _, err := w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild %s: %w", l.Table, err)
		}
	}
	if seq.Valid {
		if _, err := w.ExecContext(ctx, "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", seq.Int64, l.Table); err != nil {
			return fmt.Errorf("sequence of %s: %w", l.Table, err)
		}
		if _, err := w.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
			l.Table, seq.Int64, l.Table); err != nil {
			return fmt.Errorf("sequence of %s: %w", l.Table, err)
		}
	}
	for _, q := range recreate {
		if _, err := w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild %s: %w", l.Table, err)
		}
	}
	return nil
}

// mentionsAny reports whether SQL text names one of the columns.
func mentionsAny(ddl string, cols []string) bool {
	for _, c := range cols {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(c) + `\b`).MatchString(ddl) {
			return true
		}
	}
	return false
}
