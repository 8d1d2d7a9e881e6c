// Package blob stores binary content (attachments, files, versions, avatars)
// by key: a local folder (the embedded default) or a bucket of an
// S3-compatible service (CORE_BLOB_URL=s3://bucket?endpoint=…&region=…).
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"coreportal/internal/privfs"
)

// ErrNotFound is returned by Get, GetRange and Stat when no content exists for a key.
var ErrNotFound = errors.New("blob not found")

// Store keeps content by key. Keys are made of [a-z0-9_-] segments separated by "/".
type Store interface {
	// Put streams r under key and returns the number of bytes written; a
	// failed or cancelled Put leaves nothing behind.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Get opens the content of key (ErrNotFound when absent).
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// GetRange opens length bytes of key starting at offset (length -1 =
	// to the end). A range reaching past the end is cut at the end; an
	// offset at or past the end yields empty content. ErrNotFound when absent.
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Stat returns the size in bytes of key (ErrNotFound when absent).
	Stat(ctx context.Context, key string) (int64, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Pinger is a store that can tell whether its backend answers (readiness).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Open returns the store named by CORE_BLOB_URL ("" or file://path = local
// folder, s3://bucket?… = S3 with credentials from AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY). An S3 bucket that is missing or does not answer is
// an error here, so the service refuses to start rather than fail uploads.
func Open(ctx context.Context, rawURL, dataDir string) (Store, error) {
	if rawURL == "" {
		return NewLocal(filepath.Join(dataDir, "blobs"))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("CORE_BLOB_URL: %w", err)
	}
	switch u.Scheme {
	case "file":
		return NewLocal(u.Path)
	case "s3":
		o, err := ParseS3URL(u)
		if err != nil {
			return nil, err
		}
		return NewS3(ctx, o)
	}
	return nil, fmt.Errorf("CORE_BLOB_URL: unsupported scheme %q", u.Scheme)
}

var keyRE = regexp.MustCompile(`^[a-z0-9_-]+(/[a-z0-9_-]+)*$`)

// CheckKey refuses keys that could escape the store.
func CheckKey(key string) error {
	if len(key) > 512 || !keyRE.MatchString(key) {
		return fmt.Errorf("invalid blob key %q", key)
	}
	return nil
}

// Local stores blobs as files under a folder.
type Local struct{ dir string }

// NewLocal creates the folder when missing.
func NewLocal(dir string) (*Local, error) {
	if err := privfs.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("blob folder: %w", err)
	}
	return &Local{dir: dir}, nil
}

func (l *Local) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.dir, filepath.FromSlash(key)), nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// mkdirUnder creates dir and every missing folder between root and dir
// with mode 0700.
func mkdirUnder(root, dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir && len(parent) > len(root) {
		if err := mkdirUnder(root, parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, privfs.DirMode); err != nil && !os.IsExist(err) {
		return err
	}
	return os.Chmod(dir, privfs.DirMode)
}

// Put writes to a temporary file and renames it into place.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := l.path(key)
	if err != nil {
		return 0, err
	}
	if err := mkdirUnder(l.dir, filepath.Dir(p)); err != nil {
		return 0, fmt.Errorf("blob folder: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return 0, fmt.Errorf("blob temp file: %w", err)
	}
	err = tmp.Chmod(privfs.FileMode)
	var n int64
	if err == nil {
		n, err = io.Copy(tmp, ctxReader{ctx, r})
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, fmt.Errorf("write blob: %w", err)
	}
	return n, nil
}

// Get opens the file of key.
func (l *Local) Get(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	return f, err
}

// GetRange opens a section of the file of key.
func (l *Local) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	rc, err := l.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	f := rc.(*os.File)
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("seek blob: %w", err)
	}
	if length < 0 {
		return f, nil
	}
	return limitedReadCloser{io.LimitReader(f, length), f}, nil
}

// Stat returns the size of the file of key.
func (l *Local) Stat(_ context.Context, key string) (int64, error) {
	p, err := l.path(key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("stat blob: %w", err)
	}
	return fi.Size(), nil
}

// checkRange refuses a negative offset or a length below -1.
func checkRange(offset, length int64) error {
	if offset < 0 || length < -1 {
		return fmt.Errorf("invalid blob range offset=%d length=%d", offset, length)
	}
	return nil
}

type limitedReadCloser struct {
	io.Reader
	io.Closer
}

// Ping checks that the folder is there and writable.
func (l *Local) Ping(_ context.Context) error {
	f, err := os.CreateTemp(l.dir, ".ping-*")
	if err != nil {
		return fmt.Errorf("blob folder %s: %w", l.dir, err)
	}
	_ = f.Close()
	return os.Remove(f.Name())
}

// Delete removes the file of key.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete blob: %w", err)
	}
	return nil
}

// KeyFor builds a key from a prefix and an id (ids are UUIDs, lower-cased).
func KeyFor(prefix, id string) string {
	return prefix + "/" + strings.ToLower(id[:2]) + "/" + strings.ToLower(id)
}
