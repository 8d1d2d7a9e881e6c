package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
)

// Snapshot runs fn in one read-only transaction that sees a single consistent
// state of the whole database while writers go on (PostgreSQL: REPEATABLE
// READ READ ONLY; SQLite: a read transaction on the WAL snapshot taken at its
// first read). Backups use it.
func (db *DB) Snapshot(ctx context.Context, fn func(ctx context.Context, q Querier) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.Dialect == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	sqlTx, err := db.read.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin snapshot: %w", err)
	}
	defer func() { _ = sqlTx.Rollback() }()
	tx := &Tx{tx: sqlTx, d: db.Dialect, o: db.outage}
	return fn(context.WithValue(ctx, txKey{}, tx), tx)
}

// Tables lists the base tables of the database (introspection for backups).
func (db *DB) Tables(ctx context.Context) ([]string, error) {
	// plain tables only: virtual tables (FTS) and their shadow tables are derived data
	q := `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
	if db.Dialect == Postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
	}
	rows, err := db.Q(ctx).QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("scan table name: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Column is a column of a table and its kind: "bool", "int", "float",
// "time", "bytes", "json" or "text".
type Column struct {
	Name string
	Kind string
}

// Columns describes a table's columns in order (introspection for backups).
func (db *DB) Columns(ctx context.Context, table string) ([]Column, error) {
	var q string
	if db.Dialect == Postgres {
		q = `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	} else {
		q = `SELECT name, type FROM pragma_table_info(?) ORDER BY cid`
	}
	rows, err := db.Q(ctx).QueryContext(ctx, q, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	var out []Column
	for rows.Next() {
		var c Column
		var typ string
		if err := rows.Scan(&c.Name, &typ); err != nil {
			return nil, fmt.Errorf("scan column of %s: %w", table, err)
		}
		c.Kind = kindOf(typ)
		out = append(out, c)
	}
	return out, rows.Err()
}

func kindOf(typ string) string {
	t := strings.ToLower(typ)
	switch {
	case strings.Contains(t, "bool"):
		return "bool"
	case strings.Contains(t, "int") || t == "serial" || t == "bigserial":
		return "int"
	case strings.Contains(t, "double") || strings.Contains(t, "real") || strings.Contains(t, "numeric") || strings.Contains(t, "float") || strings.Contains(t, "decimal"):
		return "float"
	case strings.Contains(t, "timestamp") || t == "date" || strings.Contains(t, "time"):
		return "time"
	case strings.Contains(t, "bytea") || strings.Contains(t, "blob"):
		return "bytes"
	case strings.Contains(t, "json"):
		return "json"
	}
	return "text"
}

// QuoteIdent quotes a table or column name taken from the database's own
// catalogue (never from a request).
func QuoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

var reCreateTable = regexp.MustCompile(`(?i)CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)"?`)

// MigrationTables are the tables the embedded migrations create; any other
// table is dynamic (list item tables).
func (db *DB) MigrationTables() (map[string]bool, error) {
	migs, err := loadMigrations(db.Dialect)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{"schema_migrations": true}
	for _, m := range migs {
		for _, g := range reCreateTable.FindAllStringSubmatch(m.sql, -1) {
			out[strings.ToLower(g[1])] = true
		}
	}
	return out, nil
}

// SchemaVersion is the highest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := db.Q(ctx).QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
