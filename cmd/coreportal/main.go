// Command coreportal is the whole Core Portal service: API, worker and the
// administration commands, in one binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"coreportal/internal/applog"
	"coreportal/internal/auth"
	"coreportal/internal/config"
	"coreportal/internal/fault"
)

func main() {
	os.Exit(cli(os.Args[1:]))
}

// cli runs one command and returns the exit status: 0, 1 when the command
// failed, 2 for a usage or configuration error. Help goes to stdout, an
// error is one line on stderr.
func cli(args []string) int {
	if len(args) == 0 {
		writeUsage(os.Stderr)
		return 2
	}
	if isHelpFlag(args[0]) || args[0] == "help" && len(args) == 1 {
		writeUsage(os.Stdout)
		return 0
	}
	if args[0] == "--version" {
		args = []string{"version"}
	}
	if args[0] == "help" { // help <command>
		args = append(args[1:], "-h")
	}
	c, rest, err := findCommand(args)
	if err != nil {
		return fail("", err)
	}
	run, cfg, err := parseCommand(c, rest, os.Getenv, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && c.serving {
		err = checkSeedPassword(cfg)
	}
	if err != nil {
		return fail(c.name, err)
	}
	if c.noConfig {
		return exitOf(c.name, run(context.Background(), cfg))
	}
	processRole = c.name
	switch {
	case benchNoTee != "":
	case c.name == "serve" || c.name == "api":
		logTee = applog.NewTee("api", instanceName())
	case c.name == "worker":
		logTee = applog.NewTee("worker", instanceName())
	}
	// Services log to stdout; one-shot commands to stderr, so that their
	// stdout carries only their answer (a table, JSON).
	logTo := os.Stderr
	if c.serving || c.name == "backup-runner" || c.name == "update-runner" {
		logTo = os.Stdout
	}
	slog.SetDefault(newLogger(cfg, logTo, logTee))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err = run(ctx, cfg)
	if err != nil && c.serving {
		slog.Error("exit", "command", c.name, "err", err)
	}
	return exitOf(c.name, err)
}

func exitOf(name string, err error) int {
	if err == nil {
		return 0
	}
	return fail(name, err)
}

// fail prints err as one line on stderr and returns its exit status.
func fail(name string, err error) int {
	prefix := "coreportal"
	if name != "" {
		prefix += " " + name
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", prefix, oneLine(err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// checkSeedPassword refuses to start a serving process whose
// SEED_ADMIN_PASSWORD breaks the password policy: the bootstrap account is an
// administrator and its password is the first one an attacker tries.
func checkSeedPassword(cfg config.Config) error {
	if cfg.SeedAdminPassword == "" {
		return nil
	}
	if err := auth.CheckPasswordPolicy("SEED_ADMIN_PASSWORD", cfg.SeedAdminPassword, cfg.SeedAdminLogin); err != nil {
		var fe *fault.Error
		if errors.As(err, &fe) {
			return &exitError{code: 2, err: fmt.Errorf("configuration error: SEED_ADMIN_PASSWORD: %s", fe.Message)}
		}
		return &exitError{code: 2, err: fmt.Errorf("configuration error: SEED_ADMIN_PASSWORD: %w", err)}
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
