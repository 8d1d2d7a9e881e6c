// Command coreportal is the whole Core Portal service: API, worker and the
// administration commands, in one binary.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"coreportal/internal/applog"
	"coreportal/internal/auth"
	"coreportal/internal/config"
	"coreportal/internal/fault"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

const usage = `usage: coreportal <command> [flags]

commands:
  serve            API and worker in one process (default deployment)
  api              API only
  worker           background worker only
  migrate          apply database migrations and exit
  version          print the version
  user create      --login L --password P [--display-name N] [--email E] [--admin]
  user set-password --login L --password P   (password read from stdin when omitted)
  backup-runner    execute queued backups, validations and restores (serve and worker run one too)
  restore --from FILE   verify a backup archive and restore it into the configured database
                   (also across databases: SQLite backup into PostgreSQL and back)
  license activate --key-file F   activate a licence key (works while the portal is read-only; F may be - for stdin)
  license status   print the licence status as JSON
  update-runner    [--serve] take online update jobs (see README, "Online update")
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	if cmd == "version" {
		fmt.Println(buildVersion())
		return
	}
	if cmd == "license" || cmd == "licence" {
		if len(args) == 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		cmd, args = "license "+args[0], args[1:]
	}
	if cmd == "user" {
		if len(args) == 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		cmd, args = "user "+args[0], args[1:]
	}
	known := map[string]bool{"serve": true, "api": true, "worker": true, "migrate": true, "user create": true, "user set-password": true,
		"license activate": true, "license status": true, "update-runner": true, "backup-runner": true, "restore": true}
	if !known[cmd] {
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	cfgArgs := args
	if cmd == "user create" || cmd == "user set-password" || strings.HasPrefix(cmd, "license ") || cmd == "update-runner" || cmd == "restore" {
		cfgArgs = nil
	}
	cfg, err := config.Load(os.Getenv, cfgArgs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "configuration error:\n%v\n", err)
		os.Exit(2)
	}
	if err := checkSeedPassword(cmd, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "configuration error:\n%v\n", err)
		os.Exit(2)
	}
	processRole = cmd
	switch {
	case benchNoTee != "":
	case cmd == "serve" || cmd == "api":
		logTee = applog.NewTee("api", instanceName())
	case cmd == "worker":
		logTee = applog.NewTee("worker", instanceName())
	}
	log := newLogger(cfg, os.Stdout, logTee)
	slog.SetDefault(log)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cmd, cfg, args); err != nil {
		log.Error("exit", "command", cmd, "err", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, cmd string, cfg config.Config, args []string) error {
	switch cmd {
	case "serve":
		return serve(ctx, cfg, true, true)
	case "backup-runner":
		return backupRunner(ctx, cfg)
	case "restore":
		return restoreCommand(ctx, cfg, args, os.Stdout)
	case "api":
		return serve(ctx, cfg, true, false)
	case "worker":
		return serve(ctx, cfg, false, true)
	case "migrate":
		db, err := openStore(ctx, cfg)
		if err != nil {
			return err
		}
		defer db.Close()
		slog.Info("migrations up to date", "database", db.Dialect.String())
		return nil
	case "user create", "user set-password":
		return userCommand(ctx, cfg, cmd, args, os.Stdin)
	case "license activate", "license status":
		return licenseCommand(ctx, cfg, cmd, args, os.Stdin, os.Stdout)
	case "update-runner":
		return updateRunnerCommand(ctx, cfg, args)
	}
	return fmt.Errorf("unknown command %q", cmd)
}

// checkSeedPassword refuses to start a serving process whose
// SEED_ADMIN_PASSWORD breaks the password policy: the bootstrap account is an
// administrator and its password is the first one an attacker tries.
func checkSeedPassword(cmd string, cfg config.Config) error {
	if cfg.SeedAdminPassword == "" || (cmd != "serve" && cmd != "api" && cmd != "worker") {
		return nil
	}
	if err := auth.CheckPasswordPolicy("SEED_ADMIN_PASSWORD", cfg.SeedAdminPassword, cfg.SeedAdminLogin); err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) {
			return fmt.Errorf("SEED_ADMIN_PASSWORD: %s", fe.Message)
		}
		return fmt.Errorf("SEED_ADMIN_PASSWORD: %w", err)
	}
	return nil
}

// benchNoTee is set only by the bench/authme harness (go build -ldflags
// "-X main.benchNoTee=1") to build the comparison binary without the
// application-log tee; release builds leave it empty. It is not an operator
// setting.
var benchNoTee string

// logTee copies the process log into the application log (serve, api,
// worker); nil for the other commands.
var logTee *applog.Tee

// processRole is the command this process runs (serve, api, worker, …).
var processRole string

// instanceName names this process in the application log and the dashboard.
func instanceName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

func newLogger(cfg config.Config, w io.Writer, tee *applog.Tee) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler
	if cfg.LogFormat == "text" {
		h = slog.NewTextHandler(w, opts)
	} else {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(applog.Handler{Handler: h, Tee: tee})
}
