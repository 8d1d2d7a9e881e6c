package blob

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// Sweeper removes what interrupted writes left behind: a Put cut off by a
// crash (kill -9, power loss) cannot clean up after itself.
type Sweeper interface {
	// Sweep removes leftovers older than age and reports how many it removed.
	Sweep(ctx context.Context, age time.Duration) (int, error)
}

// Sweep aborts the unfinished multipart uploads of the bucket started more
// than age ago under the keys this service writes (keys passing CheckKey):
// their parts are billed and invisible otherwise. A lifecycle rule of the
// bucket (AbortIncompleteMultipartUpload) does the same on the server side.
func (s *S3) Sweep(ctx context.Context, age time.Duration) (int, error) {
	cutoff := time.Now().Add(-age)
	n := 0
	for u := range s.c.ListIncompleteUploads(ctx, s.bucket, "", true) {
		if u.Err != nil {
			return n, fmt.Errorf("list unfinished uploads: %w", u.Err)
		}
		if CheckKey(u.Key) != nil || u.Initiated.After(cutoff) {
			continue
		}
		if err := s.c.RemoveIncompleteUpload(ctx, s.bucket, u.Key); err != nil {
			return n, fmt.Errorf("abort unfinished upload of %s: %w", u.Key, err)
		}
		n++
	}
	return n, nil
}

// Sweep removes the temporary files of Puts and pings cut off by a crash
// (".put-*", ".ping-*" under the folder) older than age.
func (l *Local) Sweep(ctx context.Context, age time.Duration) (int, error) {
	return SweepFiles(ctx, l.dir, age, ".put-", ".ping-")
}

// SweepFiles removes regular files under dir whose names start with one of
// prefixes and that were last modified more than age ago.
func SweepFiles(ctx context.Context, dir string, age time.Duration, prefixes ...string) (int, error) {
	cutoff := time.Now().Add(-age)
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() || !d.Type().IsRegular() || !hasPrefix(d.Name(), prefixes) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		if err := os.Remove(p); err == nil {
			n++
		} else {
			slog.WarnContext(ctx, "leftover temporary file not removed", "path", p, "err", err)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("sweep %s: %w", dir, err)
	}
	return n, nil
}

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Client is the S3 client (tests and tools that inspect the bucket).
func (s *S3) Client() *minio.Client { return s.c }
