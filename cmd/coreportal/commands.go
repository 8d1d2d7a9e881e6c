package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"coreportal/internal/config"
)

// commands lists every command in the order `coreportal help` shows them.
func commands() []*command {
	return []*command{
		{name: "serve", summary: "API and worker in one process (default deployment)", serving: true,
			setup: fixed(func(ctx context.Context, cfg config.Config) error { return serve(ctx, cfg, true, true) })},
		{name: "api", summary: "API only (several instances share the database and CORE_BUS_URL)", serving: true,
			setup: fixed(func(ctx context.Context, cfg config.Config) error { return serve(ctx, cfg, true, false) })},
		{name: "worker", summary: "background worker only", serving: true,
			setup: fixed(func(ctx context.Context, cfg config.Config) error { return serve(ctx, cfg, false, true) })},
		{name: "migrate", summary: "apply database migrations and exit", setup: fixed(migrate)},
		{name: "version", summary: "print the version, commit, build date and Go version", noConfig: true,
			setup: fixed(func(context.Context, config.Config) error { printVersion(os.Stdout); return nil })},
		{name: "help", args: "[command]", summary: "print this help, or a command's (also -h, --help, <command> -h)", noConfig: true,
			setup: fixed(func(context.Context, config.Config) error { writeUsage(os.Stdout); return nil })},
		{name: "user create", args: "--login L [--password P] [--display-name N] [--email E] [--admin]",
			summary: "create a local user (password read from stdin when omitted)", setup: userCreateSetup},
		{name: "user set-password", args: "--login L [--password P]",
			summary: "set a local user's password (read from stdin when omitted)", setup: userSetPasswordSetup},
		{name: "user list", args: "[--json]", summary: "list the users (login, name, e-mail, administrator, active, source)", setup: userListSetup},
		{name: "user disable", args: "--login L", summary: "deactivate a user and end all of their sessions", setup: userDisableSetup,
			about: "The user can no longer sign in and every token they hold stops working (at once on instances that share\n" +
				"CORE_BUS_URL, else within 10 seconds). The bootstrap administrator and the last active administrator cannot\n" +
				"be deactivated. Re-activate with PATCH /api/v1/admin/users/{id} {\"isActive\": true}."},
		{name: "backup", args: "--to FILE", summary: "write a backup archive of the database and blobs to FILE", setup: backupToSetup,
			about: "The archive is the format of the API's backups (POST /api/v1/admin/backups): one consistent snapshot taken\n" +
				"while the service keeps running, verified and restored by `coreportal restore --from FILE` or placed in the\n" +
				"backup catalogue. FILE is written under a temporary name and renamed when complete."},
		{name: "backup-runner", summary: "execute queued backups, validations and restores (serve and worker run one too)",
			setup: fixed(backupRunner)},
		{name: "restore", args: "--from FILE [--accept-unverified]", summary: "verify a backup archive and restore it into the configured database",
			about: "Restores also across databases: a SQLite backup into PostgreSQL and back.", setup: restoreSetup},
		{name: "license activate", args: "--key-file F", summary: "activate a licence key (works while the portal is read-only; F may be - for stdin)",
			setup: licenseSetup("license activate")},
		{name: "license status", summary: "print the licence status as JSON", setup: licenseSetup("license status")},
		{name: "healthcheck", summary: "exit 0 when the service on CORE_ADDR answers /health with 200 (container health checks)",
			setup: fixed(func(ctx context.Context, cfg config.Config) error { return healthcheck(ctx, cfg.Addr) })},
		{name: "update-runner", args: "[--serve]", summary: "take online update jobs (README, \"Online update\")", setup: updateRunnerSetup},
	}
}

// fixed is the setup of a command without flags of its own.
func fixed(run runFunc) func(*flag.FlagSet) runFunc {
	return func(*flag.FlagSet) runFunc { return run }
}

func migrate(ctx context.Context, cfg config.Config) error {
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	slog.Info("migrations up to date", "database", db.Dialect.String())
	return nil
}

func restoreSetup(fs *flag.FlagSet) runFunc {
	from := fs.String("from", "", "backup archive to restore")
	accept := fs.Bool("accept-unverified", false, "restore an archive whose signature cannot be checked (no CORE_BACKUP_KEY, unsigned, another key): its data, none of its secrets")
	return func(ctx context.Context, cfg config.Config) error {
		if *from == "" {
			return usageErr("--from FILE is required")
		}
		args := []string{"--from", *from}
		if *accept {
			args = append(args, "--accept-unverified")
		}
		return restoreCommand(ctx, cfg, args, os.Stdout)
	}
}

func updateRunnerSetup(fs *flag.FlagSet) runFunc {
	supervise := fs.Bool("serve", false, "start the service as a child process and restart it after an update")
	return func(ctx context.Context, cfg config.Config) error {
		args := []string{}
		if *supervise {
			args = append(args, "--serve")
		}
		return updateRunnerCommand(ctx, cfg, args)
	}
}
