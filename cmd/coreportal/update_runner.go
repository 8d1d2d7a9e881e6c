package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"coreportal/internal/config"
	"coreportal/internal/release"
	"coreportal/internal/vendorkey"
)

// updateRunnerCommand runs `coreportal update-runner [--serve]`: it polls the
// portal's upgrade queue and installs releases. With --serve it starts the
// service itself (`<binary> serve`, same environment) and restarts it after
// an update; without, CORE_UPDATE_RESTART_CMD restarts it.
func updateRunnerCommand(ctx context.Context, cfg config.Config, args []string) error {
	fs := flag.NewFlagSet("update-runner", flag.ContinueOnError)
	supervise := fs.Bool("serve", false, "start the service as a child process and restart it after an update")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	bin := env("CORE_UPDATE_BINARY", "")
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("CORE_UPDATE_BINARY: %w", err)
		}
		if bin, err = filepath.EvalSymlinks(exe); err != nil {
			return fmt.Errorf("CORE_UPDATE_BINARY: %w", err)
		}
	}
	pub, err := vendorkey.Parse(cfg.UpdatePublicKey)
	if err != nil {
		return fmt.Errorf("CORE_UPDATE_PUBLIC_KEY: %w", err)
	}
	poll, err := time.ParseDuration(env("CORE_UPDATE_POLL", "5s"))
	if err != nil || poll <= 0 || poll >= release.RunnerOnlineWindow {
		return fmt.Errorf("CORE_UPDATE_POLL: must be a duration between 0 and %s", release.RunnerOnlineWindow)
	}
	health, err := time.ParseDuration(env("CORE_UPDATE_HEALTH_TIMEOUT", "90s"))
	if err != nil || health <= 0 {
		return fmt.Errorf("CORE_UPDATE_HEALTH_TIMEOUT: must be a positive duration")
	}
	maxMB, err := strconv.Atoi(env("CORE_UPDATE_MAX_MB", "512"))
	if err != nil || maxMB <= 0 {
		return fmt.Errorf("CORE_UPDATE_MAX_MB: must be a positive whole number")
	}
	r, err := release.NewRunner(release.RunnerConfig{
		APIURL: env("CORE_UPDATE_API_URL", localURL(cfg.Addr)), Token: cfg.UpdateRunnerToken, Binary: bin, PublicKey: pub,
		Poll: poll, HealthTimeout: health, MaxDownload: int64(maxMB) << 20, RestartCmd: os.Getenv("CORE_UPDATE_RESTART_CMD"),
		ReleaseFile: cfg.ReleaseFile, Supervise: *supervise,
	})
	if err != nil {
		return err
	}
	return r.Run(ctx)
}

// localURL is the loopback address of a listen address such as :8080.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://127.0.0.1:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
