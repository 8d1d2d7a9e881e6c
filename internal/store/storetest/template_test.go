package storetest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"coreportal/internal/store"
)

// A copy of the migrated template has the schema a fresh migration makes:
// the same tables and the same migrations recorded.
func TestMigratedCopyMatchesFreshMigration(t *testing.T) {
	ctx := context.Background()
	fresh := map[string]func(t *testing.T) *store.DB{
		"sqlite": func(t *testing.T) *store.DB {
			db, err := store.Open(ctx, "", filepath.Join(t.TempDir(), "core.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		"postgres": func(t *testing.T) *store.DB {
			db, err := store.Open(ctx, FreshPostgresDB(t), "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
	}
	Run(t, func(t *testing.T, copied *store.DB) {
		name := "sqlite"
		if copied.Dialect == store.Postgres {
			name = "postgres"
		}
		migrated := fresh[name](t)
		migrate(t, migrated)
		for _, db := range []*store.DB{copied, migrated} {
			if v, err := db.SchemaVersion(ctx); err != nil || v == 0 {
				t.Fatalf("schema version %d, %v", v, err)
			}
		}
		want, err := migrated.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := copied.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("tables of the copy:\n%v\nof a fresh migration:\n%v", got, want)
		}
		v1, _ := copied.SchemaVersion(ctx)
		v2, _ := migrated.SchemaVersion(ctx)
		if v1 != v2 {
			t.Fatalf("schema version of the copy %d, of a fresh migration %d", v1, v2)
		}
	})
}
