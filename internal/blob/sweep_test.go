package blob_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"coreportal/internal/blob"
	"coreportal/internal/blob/blobtest"
)

// TestSweepAbortsUnfinishedUploads: a multipart upload left by a killed
// instance is aborted once older than the age; a fresh one is kept.
func TestSweepAbortsUnfinishedUploads(t *testing.T) {
	srv := blobtest.StartS3(t)
	st := srv.Store(t)
	ctx := context.Background()
	core := minio.Core{Client: st.Client()}
	if _, err := core.NewMultipartUpload(ctx, srv.Bucket, "files/ab/left-behind", minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Sweep(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("a fresh upload was aborted: %d %v", n, err)
	}
	time.Sleep(1100 * time.Millisecond)
	if n, err := st.Sweep(ctx, time.Second); err != nil || n != 1 {
		t.Fatalf("swept %d, %v", n, err)
	}
	for u := range st.Client().ListIncompleteUploads(ctx, srv.Bucket, "", true) {
		t.Fatalf("still unfinished: %+v", u)
	}
}

func TestSweepLocalTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	l, err := blob.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(filepath.Join(dir, "files", "ab"), 0o700)
	old := filepath.Join(dir, "files", "ab", ".put-123")
	fresh := filepath.Join(dir, "files", "ab", ".put-456")
	kept := filepath.Join(dir, "files", "ab", "content")
	for _, p := range []string{old, fresh, kept} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-48 * time.Hour)
	_ = os.Chtimes(old, past, past)
	_ = os.Chtimes(kept, past, past)
	if n, err := l.Sweep(context.Background(), 24*time.Hour); err != nil || n != 1 {
		t.Fatalf("swept %d, %v", n, err)
	}
	for p, want := range map[string]bool{old: false, fresh: true, kept: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Fatalf("%s exists=%v, want %v", p, err == nil, want)
		}
	}
}
