package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// BootstrapPasswordFile is where a generated bootstrap password is written,
// under the data folder.
const BootstrapPasswordFile = "bootstrap-password"

// writeBootstrapPassword writes a generated bootstrap password to
// {data_dir}/bootstrap-password, readable by the owner only (0600),
// replacing the file atomically, and returns its path. The password itself
// never goes to the log.
func writeBootstrapPassword(dataDir, password string) (string, error) {
	path := filepath.Join(dataDir, BootstrapPasswordFile)
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return "", fmt.Errorf("bootstrap password: create %s: %w", dataDir, err)
	}
	f, err := os.CreateTemp(dataDir, ".bootstrap-password-*")
	if err != nil {
		return "", fmt.Errorf("bootstrap password: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.WriteString(password + "\n")
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return "", fmt.Errorf("bootstrap password: write %s: %w", path, err)
	}
	return path, nil
}
