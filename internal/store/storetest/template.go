package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"coreportal/internal/store"
)

// Migrating a fresh database costs seconds (tens of them under the race
// detector); most tests need only a migrated one. A database is migrated once
// per set of migrations (store.MigrationsDigest) and copied for every test:
// a file in the temp folder for SQLite, a template database for PostgreSQL.
// Both are shared by test processes and kept between runs; a new set of
// migrations makes a new one.

var (
	sqliteTemplateOnce sync.Once
	sqliteTemplatePath string
	sqliteTemplateErr  error
)

// CopyMigratedSQLite writes a migrated SQLite database at path.
func CopyMigratedSQLite(t testing.TB, path string) {
	t.Helper()
	sqliteTemplateOnce.Do(func() { sqliteTemplatePath, sqliteTemplateErr = sqliteTemplate() })
	if sqliteTemplateErr != nil {
		t.Fatalf("migrated SQLite template: %v", sqliteTemplateErr)
	}
	if err := copyFile(sqliteTemplatePath, path); err != nil {
		t.Fatalf("copy the migrated SQLite template: %v", err)
	}
}

// sqliteTemplate returns the path of the migrated template file, making it
// when it does not exist (in a folder of its own, renamed into place, so that
// processes making it at once never see half a file).
func sqliteTemplate() (string, error) {
	digest, err := store.MigrationsDigest(store.SQLite)
	if err != nil {
		return "", err
	}
	path := filepath.Join(os.TempDir(), "coreportal-migrated-"+digest+".db")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	dir, err := os.MkdirTemp("", "coreportal-migrating-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	built := filepath.Join(dir, "core.db")
	db, err := store.Open(context.Background(), "", built)
	if err != nil {
		return "", err
	}
	err = db.Migrate(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		// Everything into the main file: the copy is the file alone.
		_, err = db.W(context.Background()).ExecContext(context.Background(), "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("migrate the template: %w", err)
	}
	if err := os.Rename(built, path); err != nil {
		return "", err
	}
	return path, nil
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

var (
	postgresTemplateOnce sync.Once
	postgresTemplateName string
	postgresTemplateErr  error
)

// templateLockID serialises the making of a template database between test
// processes (pg_advisory_lock).
const templateLockID = 7_306_118_002

// MigratedPostgresDB creates a migrated database (a copy of the template) and
// returns its URL; it is dropped at cleanup.
func MigratedPostgresDB(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	if base == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	postgresTemplateOnce.Do(func() { postgresTemplateName, postgresTemplateErr = postgresTemplate(base) })
	if postgresTemplateErr != nil {
		t.Fatalf("migrated PostgreSQL template: %v", postgresTemplateErr)
	}
	return createDatabase(t, base, "TEMPLATE "+postgresTemplateName)
}

// postgresTemplate returns the name of the migrated template database,
// making it under an advisory lock when it does not exist.
func postgresTemplate(base string) (string, error) {
	digest, err := store.MigrationsDigest(store.Postgres)
	if err != nil {
		return "", err
	}
	name := "coretpl_" + digest
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", templateLockID); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", templateLockID) }()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		return "", err
	}
	if n == 1 {
		return name, nil
	}
	if err := buildPostgresTemplate(ctx, conn, base, name); err != nil {
		return "", err
	}
	return name, nil
}

// keptTemplates is how many templates (sets of migrations) the server keeps.
const keptTemplates = 8

// buildPostgresTemplate migrates a new database and renames it to name;
// beyond the newest keptTemplates, templates of other sets of migrations are
// dropped (when no copy of them is being made).
func buildPostgresTemplate(ctx context.Context, conn *sql.Conn, base, name string) error {
	building := name + "_building"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return err
	}
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	u.Path = "/" + building
	db, err := store.Open(ctx, u.String(), "")
	if err != nil {
		return err
	}
	err = db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("migrate the template: %w", err)
	}
	// The closed pool's sessions may take a moment to end.
	for try := 0; ; try++ {
		_, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name)
		if err == nil {
			break
		}
		if try == 50 {
			return fmt.Errorf("rename the template: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Several checkouts (worktrees, branches with other migrations) may share
	// the server: the newest templates stay, older ones go.
	rows, err := conn.QueryContext(ctx, `SELECT datname FROM pg_database
		WHERE datname LIKE 'coretpl\_%' AND datname NOT LIKE '%\_building' AND datname <> $1
		ORDER BY oid DESC OFFSET $2`, name, keptTemplates-1)
	if err != nil {
		return err
	}
	var stale []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		stale = append(stale, s)
	}
	rows.Close()
	for _, s := range stale {
		_, _ = conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+s)
	}
	return rows.Err()
}
