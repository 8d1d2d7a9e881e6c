package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"

	"coreportal/internal/audit"
	"coreportal/internal/config"
)

// backupToSetup is `coreportal backup --to FILE`: one archive in the format
// of the API's backups (backup.Service.Backup), from a consistent snapshot,
// while the service may keep running.
func backupToSetup(fs *flag.FlagSet) runFunc {
	to := fs.String("to", "", "archive file to write (required); replaced only once the new archive is complete")
	return func(ctx context.Context, cfg config.Config) error {
		if *to == "" {
			return usageErr("--to FILE is required")
		}
		path, err := filepath.Abs(*to)
		if err != nil {
			return fmt.Errorf("--to %s: %w", *to, err)
		}
		a, err := build(ctx, cfg)
		if err != nil {
			return err
		}
		defer a.close()
		m, size, err := a.admin.backup.Backup(ctx, filepath.Dir(path), filepath.Base(path))
		if err != nil {
			return fmt.Errorf("backup to %s: %w", path, err)
		}
		if err := a.settings.Set(ctx, cliBackupSetting, m.CreatedAt.UTC().Format(timeLayout)); err != nil {
			slog.Warn("backup written but its time was not recorded for the backup-age metric", "err", err)
		}
		actor := cliActor
		audit.Record(ctx, audit.Entry{Action: audit.BackupRun, ResourceType: "backup", ResourceID: filepath.Base(path), Actor: &actor,
			Details: map[string]any{"file": path, "size": size, "counts": m.Counts}})
		fmt.Printf("backup written to %s (%d bytes, %d tables, %d rows, %d blobs)\n", path, size, m.Counts.Tables, m.Counts.Rows, m.Counts.Blobs)
		return nil
	}
}
