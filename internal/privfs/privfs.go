// Package privfs creates the service's files and folders readable by its own
// account only: files 0600, folders 0700, whatever the process umask (the
// mode is set explicitly after creation).
package privfs

import (
	"fmt"
	"os"
)

const (
	// FileMode of every file holding data or secrets.
	FileMode os.FileMode = 0o600
	// DirMode of every folder the service creates.
	DirMode os.FileMode = 0o700
)

// MkdirAll creates dir (and missing parents) and sets dir itself to 0700.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, DirMode); err != nil {
		return fmt.Errorf("restrict %s: %w", dir, err)
	}
	return nil
}

// MkdirNew creates dir (and missing parents) like MkdirAll, but sets the
// mode only when it creates dir: a folder that already exists (chosen by the
// operator) keeps its mode.
func MkdirNew(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	return MkdirAll(dir)
}

// Create creates or truncates a file with mode 0600.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, FileMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(FileMode); err != nil {
		f.Close()
		return nil, fmt.Errorf("restrict %s: %w", path, err)
	}
	return f, nil
}

// Restrict sets an existing file to 0600; a missing one is not an error.
func Restrict(path string) error {
	if err := os.Chmod(path, FileMode); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("restrict %s: %w", path, err)
	}
	return nil
}
