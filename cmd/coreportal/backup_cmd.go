package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"coreportal/internal/config"
)

// backupRunner is `coreportal backup-runner`: it executes queued validate,
// backup and restore records (serve and worker run one too) until stopped.
func backupRunner(ctx context.Context, cfg config.Config) error {
	a, err := build(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	slog.Info("backup runner started")
	a.admin.backup.Run(ctx)
	slog.Info("backup runner stopped")
	return nil
}

// restoreCommand is `coreportal restore --from FILE`: it verifies the archive
// and restores it into the configured database and blob store (the way to
// move from the embedded SQLite database to PostgreSQL: point DATABASE_URL at
// the new database and restore a backup of the old one).
func restoreCommand(ctx context.Context, cfg config.Config, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "backup archive to restore")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" {
		return errors.New("restore: --from FILE is required")
	}
	a, err := build(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	m, err := a.admin.backup.RestoreFile(ctx, *from)
	if err != nil {
		return fmt.Errorf("restore %s: %w", *from, err)
	}
	slog.Info("restored", "file", *from, "dialect", m.Dialect, "tables", m.Counts.Tables, "rows", m.Counts.Rows, "blobs", m.Counts.Blobs)
	return nil
}
