// Command backup measures a backup and a restore of a large portal on
// PostgreSQL: it seeds a list of N items (with bench/lists seed) and B MB of
// attachment blobs in a local blob folder, takes a backup archive while the
// database is live, then restores it into a second fresh database, and
// reports time, peak memory of this process (VmHWM) and archive size.
//
//	go run ./bench/backup -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' -items 1000000 -blobmb 2048
package main

import (
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
	"runtime/pprof"
	"strings"
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
	blobSize := flag.Int("blobsize", 1<<20, "bytes per blob")
	srcURL := flag.String("src", "", "use this already seeded database instead of seeding a fresh one (with -blobdir)")
	blobDir := flag.String("blobdir", "", "blob folder of -src; with -keep, where the seeded blobs are kept")
	keep := flag.Bool("keep", false, "keep the seeded database and blob folder (printed) for later runs with -src/-blobdir")
	doRestore := flag.Bool("restore", true, "also restore the archive into a fresh database")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the backup to this file")
	flag.Parse()
	ctx := context.Background()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	dir, err := os.MkdirTemp("", "bench-backup")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	fmt.Printf("load average at start: %s\n", loadAvg())

	src := *srcURL
	if src == "" {
		var dropSrc func()
		src, dropSrc = benchkit.FreshDB(*admin, "benchbackup")
		if *keep {
			fmt.Printf("kept source database: %s\n", src)
		} else {
			defer dropSrc()
		}
	}
	bdir := *blobDir
	switch {
	case bdir == "" && *keep:
		bdir, err = os.MkdirTemp("", "bench-backup-blobs")
		benchkit.Must(err)
	case bdir == "":
		bdir = filepath.Join(dir, "blobs")
	}
	db, err := store.Open(ctx, src, "")
	benchkit.Must(err)
	defer db.Close()
	blobs, err := blob.NewLocal(bdir)
	benchkit.Must(err)
	if *srcURL == "" {
		seedAll(ctx, src, db, blobs, *items, *blobMB, *blobSize)
		if *keep {
			fmt.Printf("kept blob folder: %s\n", bdir)
			defer func() { fmt.Printf("re-run: go run ./bench/backup -src '%s' -blobdir %s\n", src, bdir) }()
		}
	}

	runtime.GC()
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		benchkit.Must(err)
		benchkit.Must(pprof.StartCPUProfile(pf))
	}
	svc := backup.New(db, blobs, kv{}, dir, backup.Hooks{})
	cpu0, t0 := benchkit.CPUTicks(os.Getpid()), time.Now()
	m, size, err := svc.Backup(ctx, filepath.Join(dir, "catalogue"), "bench.tar")
	benchkit.Must(err)
	took := time.Since(t0)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("backup: %s (process CPU %.1f s), archive %d MB, %d tables, %d rows, %d blobs (%d MB), peak RSS of the process %d MB, load average %s\n",
		took.Round(time.Millisecond), float64(benchkit.CPUTicks(os.Getpid())-cpu0)/100, size>>20, m.Counts.Tables, m.Counts.Rows, m.Counts.Blobs, m.Counts.BlobBytes>>20,
		benchkit.ProcKB(os.Getpid(), "VmHWM")>>10, loadAvg())
	if !*doRestore {
		return
	}
	dst, dropDst := benchkit.FreshDB(*admin, "benchrestore")
	defer dropDst()
	db2, err := store.Open(ctx, dst, "")
	benchkit.Must(err)
	defer db2.Close()
	benchkit.Must(db2.Migrate(ctx, slog.Default()))
	blobs2, err := blob.NewLocal(filepath.Join(dir, "blobs2"))
	benchkit.Must(err)
	t1 := time.Now()
	_, err = backup.Restore(ctx, db2, blobs2, filepath.Join(dir, "catalogue", "bench.tar"), nil, backup.RestoreOptions{AcceptUnverified: true}, backup.Hooks{RebuildTables: listsOf(db2).RebuildItemTables})
	benchkit.Must(err)
	fmt.Printf("restore (verify + load): %s, peak RSS of the process %d MB, load average %s\n", time.Since(t1).Round(time.Millisecond), benchkit.ProcKB(os.Getpid(), "VmHWM")>>10, loadAvg())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// seedAll seeds the items and the blobs. Items: bench/lists seed creates
// the list (10 fields, views, indexes, counting trigger) and up to 10,000
// items through the lists service (which also indexes them for search, about
// 150 items/s on the shared machine); the rest are copies of those rows made
// by INSERT … SELECT on the server (new guids, each with its ACL object; the
// copies are not in the search index, a derived table the backup skips),
// which keeps a 1,000,000-item seed within a few minutes. Blobs: blobSize
// bytes each (incompressible, like the images and PDFs that dominate real
// attachment volume), one list_attachments row per blob, rows inserted 500
// at a time.
func seedAll(ctx context.Context, src string, db *store.DB, blobs blob.Store, items, blobMB, blobSize int) {
	start := time.Now()
	base := min(items, 10000)
	seed := exec.Command("go", "run", "./bench/lists", "seed", "-db", src, "-n", fmt.Sprint(base))
	seed.Stdout, seed.Stderr = os.Stderr, os.Stderr
	benchkit.Must(seed.Run())
	benchkit.Must(db.Migrate(ctx, slog.Default()))
	var listID, table string
	benchkit.Must(db.Q(ctx).QueryRowContext(ctx, `SELECT id, table_name FROM lists LIMIT 1`).Scan(&listID, &table))
	multiply(ctx, db, listID, table, base, items)
	itemsTook := time.Since(start)
	t0 := time.Now()
	n := (blobMB << 20) / blobSize
	buf := make([]byte, blobSize)
	_, _ = rand.Read(buf)
	const batch = 500
	var args []any
	flush := func() {
		if len(args) == 0 {
			return
		}
		q := `INSERT INTO list_attachments (id, list_id, item_guid, file_name, content_type, size, blob_key, created_at) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?), ", len(args)/8), ", ")
		_, err := db.W(ctx).ExecContext(ctx, q, args...)
		benchkit.Must(err)
		args = args[:0]
	}
	now := time.Now().UTC()
	for i := 0; i < n; i++ {
		// a fresh random head per blob: every blob differs, the rest of the
		// buffer is random too (generating 2 GB afresh would dominate the seed)
		_, _ = rand.Read(buf[:4096])
		id := uuid.NewString()
		key := blob.KeyFor("attachments", id)
		_, err := blobs.Put(ctx, key, bytesReader(buf))
		benchkit.Must(err)
		args = append(args, id, listID, uuid.NewString(), "blob.bin", "application/octet-stream", len(buf), key, now)
		if len(args) == batch*8 {
			flush()
		}
	}
	flush()
	fmt.Printf("seed: %d items in %s, %d blobs (%d MB) in %s, total %s, load average %s\n", items, itemsTook.Round(time.Second),
		n, (n*blobSize)>>20, time.Since(t0).Round(time.Second), time.Since(start).Round(time.Second), loadAvg())
}

// multiply copies the first base items of table until it holds items rows
// (PostgreSQL: gen_random_uuid for the guid, one acl_objects row per copy).
func multiply(ctx context.Context, db *store.DB, listID, table string, base, items int) {
	if items <= base {
		return
	}
	var cols []string
	rows, err := db.Q(ctx).QueryContext(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? AND column_name NOT IN ('id', 'guid') ORDER BY ordinal_position`, table)
	benchkit.Must(err)
	for rows.Next() {
		var c string
		benchkit.Must(rows.Scan(&c))
		cols = append(cols, store.QuoteIdent(c))
	}
	benchkit.Must(rows.Err())
	rows.Close()
	list := strings.Join(cols, ", ")
	t := store.QuoteIdent(table)
	t0 := time.Now()
	for have := base; have < items; {
		k := min(base, items-have)
		_, err := db.W(ctx).ExecContext(ctx, `WITH src AS (SELECT `+list+` FROM `+t+` ORDER BY id LIMIT ?),
			ins AS (INSERT INTO `+t+` (guid, `+list+`) SELECT gen_random_uuid(), `+list+` FROM src RETURNING guid)
			INSERT INTO acl_objects (id, type, parent_id, inherits) SELECT guid, 'list_item', ?, true FROM ins`, k, listID)
		benchkit.Must(err)
		have += k
	}
	_, err = db.W(ctx).ExecContext(ctx, "VACUUM ANALYZE "+t)
	benchkit.Must(err)
	_, err = db.W(ctx).ExecContext(ctx, "VACUUM ANALYZE acl_objects")
	benchkit.Must(err)
	fmt.Printf("copied %d items on the server in %s\n", items-base, time.Since(t0).Round(time.Second))
}
