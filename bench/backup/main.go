// Command backup measures a backup and a restore of a large portal on
// PostgreSQL: it seeds a list of N items (with bench/lists seed) and B MB of
// attachment blobs in a local blob folder, takes a backup archive while the
// database is live, then restores it into a second fresh database, and
// reports time, peak memory of this process (VmHWM) and archive size.
//
//	go run ./bench/backup -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' -items 1000000 -blobmb 2048
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/uuid"

	"coreportal/bench/benchkit"
	"coreportal/internal/acl"
	"coreportal/internal/backup"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/lists"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
)

// listsOf builds the lists service that re-creates item tables on restore.
func listsOf(db *store.DB) *lists.Service {
	a := acl.New(db, bus.NewMemory())
	return lists.NewService(db, a, nodes.New(db, a))
}

func bytesReader(b []byte) io.Reader { return &reader{b: b} }

type reader struct {
	b []byte
	i int
}

func (r *reader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

// kv is an in-memory settings store (the bench needs no persisted settings).
type kv map[string]string

func (m kv) Get(_ context.Context, k string) (string, bool, error) { v, ok := m[k]; return v, ok, nil }
func (m kv) Set(_ context.Context, k, v string) error              { m[k] = v; return nil }

func main() {
	admin := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL admin URL (fresh databases are created)")
	items := flag.Int("items", 100000, "list items to seed")
	blobMB := flag.Int("blobmb", 200, "MB of attachment blobs to seed")
	blobSize := flag.Int("blobsize", 4<<20, "bytes per blob")
	flag.Parse()
	ctx := context.Background()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir, err := os.MkdirTemp("", "bench-backup")
	benchkit.Must(err)
	defer os.RemoveAll(dir)

	src, dropSrc := benchkit.FreshDB(*admin, "benchbackup")
	defer dropSrc()
	start := time.Now()
	seed := exec.Command("go", "run", "./bench/lists", "seed", "-db", src, "-n", fmt.Sprint(*items))
	seed.Stdout, seed.Stderr = os.Stderr, os.Stderr
	benchkit.Must(seed.Run())
	db, err := store.Open(ctx, src, "")
	benchkit.Must(err)
	defer db.Close()
	benchkit.Must(db.Migrate(ctx, slog.Default()))
	blobs, err := blob.NewLocal(filepath.Join(dir, "blobs"))
	benchkit.Must(err)
	var listID string
	benchkit.Must(db.Q(ctx).QueryRowContext(ctx, `SELECT id FROM lists LIMIT 1`).Scan(&listID))
	n := (*blobMB << 20) / *blobSize
	buf := make([]byte, *blobSize)
	for i := 0; i < n; i++ {
		_, _ = rand.Read(buf)
		id := uuid.NewString()
		key := "attachments/" + id[:2] + "/" + id
		_, err := blobs.Put(ctx, key, bytes.NewReader(buf))
		benchkit.Must(err)
		_, err = db.W(ctx).ExecContext(ctx, `INSERT INTO list_attachments (id, list_id, item_guid, file_name, content_type, size, blob_key, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, listID, uuid.NewString(), "blob.bin", "application/octet-stream", len(buf), key, time.Now().UTC())
		benchkit.Must(err)
	}
	fmt.Printf("seeded %d items and %d blobs (%d MB) in %s\n", *items, n, (n**blobSize)>>20, time.Since(start).Round(time.Second))

	runtime.GC()
	svc := backup.New(db, blobs, kv{}, dir, backup.Hooks{})
	t0 := time.Now()
	m, size, err := svc.Backup(ctx, filepath.Join(dir, "catalogue"), "bench.tar")
	benchkit.Must(err)
	took := time.Since(t0)
	fmt.Printf("backup: %s, archive %d MB, %d tables, %d rows, %d blobs, peak RSS of the process %d MB\n",
		took.Round(time.Millisecond), size>>20, m.Counts.Tables, m.Counts.Rows, m.Counts.Blobs, benchkit.ProcKB(os.Getpid(), "VmHWM")>>10)

	dst, dropDst := benchkit.FreshDB(*admin, "benchrestore")
	defer dropDst()
	db2, err := store.Open(ctx, dst, "")
	benchkit.Must(err)
	defer db2.Close()
	benchkit.Must(db2.Migrate(ctx, slog.Default()))
	blobs2, err := blob.NewLocal(filepath.Join(dir, "blobs2"))
	benchkit.Must(err)
	t1 := time.Now()
	_, err = backup.Restore(ctx, db2, blobs2, filepath.Join(dir, "catalogue", "bench.tar"), backup.Hooks{RebuildTables: listsOf(db2).RebuildItemTables})
	benchkit.Must(err)
	fmt.Printf("restore (verify + load): %s, peak RSS of the process %d MB\n", time.Since(t1).Round(time.Millisecond), benchkit.ProcKB(os.Getpid(), "VmHWM")>>10)
}
