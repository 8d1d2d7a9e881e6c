// Package storetest runs one store test against every database: SQLite
// always, PostgreSQL when TEST_DATABASE_URL is set (and CI=true requires it).
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"coreportal/internal/store"
)

// PostgresURL returns TEST_DATABASE_URL; under CI=true an empty one fails the test.
func PostgresURL(t testing.TB) string {
	u := os.Getenv("TEST_DATABASE_URL")
	if u == "" && os.Getenv("CI") == "true" {
		t.Fatal("CI=true but TEST_DATABASE_URL is empty: PostgreSQL tests must run in CI")
	}
	return u
}

// Run runs fn once per database, each in a fresh, migrated database.
func Run(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, OpenSQLite(t)) })
	t.Run("postgres", func(t *testing.T) {
		if PostgresURL(t) == "" {
			t.Skip("TEST_DATABASE_URL not set")
		}
		fn(t, OpenPostgres(t))
	})
}

// OpenSQLite opens a migrated SQLite database in a temp folder (a copy of
// the migrated template; migrating it again finds nothing to do).
func OpenSQLite(t testing.TB) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "core.db")
	CopyMigratedSQLite(t, path)
	db, err := store.Open(context.Background(), "", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db)
	return db
}

// OpenPostgres creates a fresh PostgreSQL database, migrated (a copy of the
// migrated template), dropped at cleanup.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	dbURL := MigratedPostgresDB(t)
	db, err := store.Open(context.Background(), dbURL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db)
	return db
}

// FreshPostgresDB creates an empty database and returns its URL; it is dropped at cleanup.
func FreshPostgresDB(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	if base == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	return createDatabase(t, base, "")
}

// createDatabase creates a database with the given options (such as
// "TEMPLATE x") and returns its URL; it is dropped at cleanup.
func createDatabase(t testing.TB, base, options string) string {
	t.Helper()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("coretest_%d_%d", os.Getpid(), rand.Uint32())
	if _, err := admin.Exec("CREATE DATABASE " + name + " " + options); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer a.Close()
		_, _ = a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

func migrate(t testing.TB, db *store.DB) {
	t.Helper()
	if err := db.Migrate(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
}
