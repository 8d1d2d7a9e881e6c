package services

import (
	"context"
	"log/slog"
	"testing"

	"coreportal/internal/jobs"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// A new installation backs up daily; one that existed before this default
// (it has an install id when migration 0903 runs) keeps its schedule off.
func TestCoreBackupDefault(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db, jobs.New(db))
		r, err := s.Get(ctx, KeyCoreBackup)
		if err != nil || !r.IsEnabled || !r.CronEnabled || r.CronExpression != "0 1 * * *" {
			t.Fatalf("new installation: %+v %v", r, err)
		}
		// an older installation: it has an install id, 0903 was not applied
		for _, q := range []string{"INSERT INTO settings (key, value, updated_at) VALUES ('install_id', 'x', CURRENT_TIMESTAMP)",
			"DELETE FROM schema_migrations WHERE version = 903"} {
			if _, err := db.W(ctx).ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		if r, err := s.Get(ctx, KeyCoreBackup); err != nil || r.IsEnabled || r.CronEnabled {
			t.Fatalf("older installation: %+v %v", r, err)
		}
	})
}
