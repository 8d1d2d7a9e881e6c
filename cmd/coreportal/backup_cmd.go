package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"coreportal/internal/backup"
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
// the new database and restore a backup of the old one). No bootstrap
// administrator is created: the archive brings its accounts, which the
// command lists, with the secrets it could not restore.
func restoreCommand(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(out)
	from := fs.String("from", "", "backup archive to restore")
	accept := fs.Bool("accept-unverified", false, "restore an archive whose signature cannot be checked (no CORE_BACKUP_KEY, unsigned, another key): its data, none of its secrets")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" {
		return errors.New("restore: --from FILE is required")
	}
	a, err := buildApp(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer a.close()
	rep, err := a.admin.backup.RestoreFile(ctx, *from, backup.RestoreOptions{AcceptUnverified: *accept})
	if err != nil {
		return fmt.Errorf("restore %s: %w", *from, err)
	}
	m := rep.Manifest
	slog.Info("restored", "file", *from, "dialect", m.Dialect, "tables", m.Counts.Tables, "rows", m.Counts.Rows, "blobs", m.Counts.Blobs)
	printReport(out, *from, rep)
	return nil
}

func printReport(out io.Writer, file string, rep *backup.RestoreReport) {
	m := rep.Manifest
	fmt.Fprintf(out, "restored %s: %d tables, %d rows, %d blobs (written %s from %s)\n", file, m.Counts.Tables, m.Counts.Rows, m.Counts.Blobs,
		m.CreatedAt.Format("2006-01-02 15:04:05Z"), m.Dialect)
	if rep.Verified {
		fmt.Fprintln(out, "signature: verified with CORE_BACKUP_KEY")
	} else {
		fmt.Fprintf(out, "signature: NOT verified (%s)\n", rep.Unverified)
	}
	if len(rep.SecretsRestored) > 0 {
		fmt.Fprintf(out, "secrets restored: %s\n", strings.Join(rep.SecretsRestored, ", "))
	}
	if len(rep.SecretsNotRestored) > 0 {
		fmt.Fprintf(out, "secrets NOT restored: %s\n", strings.Join(rep.SecretsNotRestored, ", "))
		for _, n := range rep.Notes {
			fmt.Fprintf(out, "  - %s\n", n)
		}
	}
	fmt.Fprintf(out, "administrators in the archive: %s\n", strings.Join(rep.Administrators, ", "))
	fmt.Fprintln(out, "no bootstrap administrator was created: sign in with an account of the archive")
}
