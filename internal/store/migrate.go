package store

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
	run     func(ctx context.Context, db *DB) error
}

// Step is a migration written in Go by the package that owns the tables it
// rewrites (tables whose names are data, such as item tables, which SQL files
// cannot name). It takes its place in the numbered sequence beside the SQL
// files, runs in the migration's transaction (Run's ctx is bound to it) and is
// recorded in schema_migrations like them. Its number must not be used by a
// file of either dialect.
type Step struct {
	Version int
	Name    string
	Run     func(ctx context.Context, db *DB) error
}

func loadMigrations(d Dialect, steps ...Step) ([]migration, error) {
	dir := "migrations/" + d.String()
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and _", e.Name())
		}
		body, err := fs.ReadFile(migrationFS, dir+"/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(body)})
	}
	for _, st := range steps {
		out = append(out, migration{version: st.Version, name: st.Name, run: st.Run})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a number", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// MigrationsDigest identifies the set of migrations of a dialect: two
// databases migrated under the same digest have the same schema, so a
// migrated database may be copied instead of migrated again (tests do).
func MigrationsDigest(d Dialect) (string, error) {
	migs, err := loadMigrations(d)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range migs {
		fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s", m.version, m.name, len(m.sql), m.sql)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// migrationLockID is an arbitrary constant for pg_advisory_xact_lock, so that
// instances starting together apply migrations once.
const migrationLockID = 7_306_118_001

// Migrate applies every migration not yet recorded (the SQL files of the
// dialect and the given steps, in number order), each in its own transaction.
// A step left out of one call runs on the next call that has it.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger, steps ...Step) error {
	migs, err := loadMigrations(db.Dialect, steps...)
	if err != nil {
		return err
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, m := range migs {
		err := db.InTx(ctx, func(ctx context.Context, tx *Tx) error {
			if db.Dialect == Postgres {
				if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", migrationLockID); err != nil {
					return fmt.Errorf("lock migrations: %w", err)
				}
			}
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.version).Scan(&n); err != nil {
				return fmt.Errorf("check migration %s: %w", m.name, err)
			}
			if n > 0 {
				return nil
			}
			if err := db.apply(ctx, tx, m); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, "+db.Dialect.Now()+")", m.version, m.name); err != nil {
				return fmt.Errorf("record migration %s: %w", m.name, err)
			}
			log.Info("migration applied", "migration", m.name)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// apply runs one migration in tx (ctx is bound to it).
func (db *DB) apply(ctx context.Context, tx *Tx, m migration) error {
	if m.run != nil {
		return m.run(ctx, db)
	}
	_, err := tx.ExecContext(ctx, m.sql)
	return err
}
