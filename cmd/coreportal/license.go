package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"coreportal/internal/config"
	"coreportal/internal/licence"
	"coreportal/internal/settings"
	"coreportal/internal/vendorkey"
)

// licenseCommand runs `license activate --key-file F` and `license status`
// against the database and data folder of the configuration. Activation
// works while the portal is read-only; running instances reload the licence
// at once over a shared bus, else within 10 seconds.
func licenseSetup(cmd string) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		keyFile := new(string)
		if cmd == "license activate" {
			fs.StringVar(keyFile, "key-file", "", "licence key file (- = stdin); the first non-empty line not starting with # is the key")
		}
		return func(ctx context.Context, cfg config.Config) error {
			if cmd == "license activate" && *keyFile == "" {
				return usageErr("--key-file is required")
			}
			return licenseCommand(ctx, cfg, cmd, *keyFile, os.Stdin, os.Stdout)
		}
	}
}

func licenseCommand(ctx context.Context, cfg config.Config, cmd, keyFile string, stdin io.Reader, stdout io.Writer) error {
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	useCLIAudit(db)
	b, err := openBus(cfg)
	if err != nil {
		return err
	}
	defer b.Close()
	pub, err := vendorkey.Parse(cfg.LicensePublicKey)
	if err != nil {
		return fmt.Errorf("CORE_LICENSE_PUBLIC_KEY: %w", err)
	}
	svc, err := licence.New(ctx, settings.New(db), licence.Options{DataDir: cfg.DataDir, PublicKey: pub,
		Channel: cfg.ReleaseChannel, Platform: platformName(), Bus: b})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if cmd == "license status" {
		return enc.Encode(svc.Current())
	}
	var content []byte
	if keyFile == "-" {
		content, err = io.ReadAll(io.LimitReader(stdin, licence.MaxKeyLength*4))
	} else {
		content, err = os.ReadFile(keyFile)
	}
	if err != nil {
		return fmt.Errorf("read key file: %w", err)
	}
	res, err := svc.Activate(ctx, string(content))
	if err != nil {
		return err
	}
	return enc.Encode(res)
}
