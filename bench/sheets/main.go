// Command sheets measures list exports and imports (issue 32) through the
// lists service in process, against SQLite or PostgreSQL.
//
//	go run ./bench/lists seed -db <…> -n 100000          # the list to export
//	go run ./bench/sheets export -db <…> -format xlsx    # or csv
//	go run ./bench/sheets import -db <…> -n 100000       # a CSV of n rows into a new list
//	go run ./bench/sheets write -format xlsx -n 1000000  # the file writer alone, synthetic rows
//
// export writes the default view of the "bench" list (node "bench") as the
// administrator to a counting writer and prints rows, bytes, seconds and
// memory: the Go heap peak (sampled every 20 ms) and the process's peak RSS.
// import creates a list of 5 fields (text, number, date, choice, boolean),
// writes a CSV of n rows, previews it and runs the import job to its end
// with a job queue and a local blob folder of its own; it prints rows per
// second and the same memory figures.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"coreportal/bench/benchkit"
	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/jobs"
	"coreportal/internal/lists"
	"coreportal/internal/nodes"
	"coreportal/internal/sheets"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

type env struct {
	db    *store.DB
	svc   *lists.Service
	nodes *nodes.Service
	q     *jobs.Queue
	admin *auth.Principal
}

func open(ctx context.Context, dsn, blobs string) *env {
	url, path := "", dsn
	if strings.HasPrefix(dsn, "postgres") {
		url, path = dsn, ""
	}
	db, err := store.Open(ctx, url, path)
	benchkit.Must(err)
	benchkit.Must(db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))))
	b := bus.NewMemory()
	engine := acl.New(db, b)
	us := users.NewService(db, b)
	e := &env{db: db, nodes: nodes.New(db, engine)}
	e.svc = lists.NewService(db, engine, e.nodes)
	if _, err := us.Bootstrap(ctx, "admin", "bench-admin-password"); err != nil {
		benchkit.Must(err)
	}
	a, err := us.AccountByLogin(ctx, "admin")
	benchkit.Must(err)
	e.admin = &auth.Principal{UserID: a.ID, Login: a.Login, DisplayName: a.DisplayName, IsAdmin: true}
	local, err := blob.NewLocal(blobs)
	benchkit.Must(err)
	e.svc.UseBlobs(local, 1<<30)
	e.q = jobs.New(db)
	e.q.UsePrincipals(func(context.Context) (*auth.Principal, error) { return e.admin, nil },
		func(context.Context, string) (*auth.Principal, error) { return e.admin, nil })
	e.svc.UseJobs(e.q)
	return e
}

// peak samples the Go heap until stop is closed.
func peak(stop chan struct{}) *atomic.Uint64 {
	var max atomic.Uint64
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > max.Load() {
				max.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return &max
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sheets export|import -db …")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dsn := fs.String("db", "/tmp/lists.db", "PostgreSQL URL or SQLite file")
	format := fs.String("format", "xlsx", "export: xlsx or csv")
	n := fs.Int("n", 100000, "import: rows")
	prof := fs.String("cpuprofile", "", "write a CPU profile to this file")
	benchkit.Must(fs.Parse(os.Args[2:]))
	if *prof != "" {
		pf, err := os.Create(*prof)
		benchkit.Must(err)
		benchkit.Must(pprof.StartCPUProfile(pf))
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sheets-bench-")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	e := open(ctx, *dsn, dir)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	max := peak(stop)
	start := time.Now()
	var line string
	switch os.Args[1] {
	case "export":
		line = export(ctx, e, *format)
	case "import":
		line = importRows(ctx, e, *n, dir)
	case "write":
		line = write(*format, *n)
	default:
		fmt.Fprintln(os.Stderr, "unknown command", os.Args[1])
		os.Exit(2)
	}
	close(stop)
	fmt.Printf("%s in %.1f s; Go heap in use: %.1f MB before, peak %.1f MB; process peak RSS %d MB\n", line, time.Since(start).Seconds(),
		float64(base.HeapInuse)/1e6, float64(max.Load())/1e6, benchkit.ProcKB(os.Getpid(), "VmHWM")/1024)
}

func export(ctx context.Context, e *env, format string) string {
	var nodeID string
	benchkit.Must(e.db.Q(ctx).QueryRowContext(ctx, "SELECT id FROM nodes WHERE slug = 'bench' AND parent_id IS NULL").Scan(&nodeID))
	listID, err := e.svc.ResolveSlug(ctx, nodeID, "bench")
	benchkit.Must(err)
	ex, err := e.svc.ExportItems(ctx, e.admin, listID, format, lists.ListParams{})
	benchkit.Must(err)
	var c counter
	benchkit.Must(ex.WriteTo(ctx, &c))
	return fmt.Sprintf("export %s: %d rows, %.1f MB", format, ex.Rows, float64(c.n)/1e6)
}

func importRows(ctx context.Context, e *env, n int, dir string) string {
	node, err := e.nodes.Create(ctx, e.admin, nodes.NewNode{Slug: fmt.Sprintf("sheets-%d", time.Now().UnixNano()), Title: "Sheets"})
	benchkit.Must(err)
	l, err := e.svc.Create(ctx, e.admin, lists.NewList{NodeID: node.ID, Title: "Import", Slug: "import"})
	benchkit.Must(err)
	for _, fd := range [][3]string{{"amount", "number", ""}, {"due", "date", ""}, {"status", "choice", `{"choices":["new","open","done","closed"]}`}, {"flag", "boolean", ""}} {
		name, typ := fd[0], fd[1]
		in := lists.FieldInput{InternalName: &name, Title: &name, FieldType: &typ}
		if fd[2] != "" {
			in.Settings = json.RawMessage(fd[2])
		}
		_, err := e.svc.CreateField(ctx, e.admin, l.ID, in)
		benchkit.Must(err)
	}
	path := dir + "/rows.csv"
	f, err := os.Create(path)
	benchkit.Must(err)
	w := csv.NewWriter(f)
	benchkit.Must(w.Write([]string{"Title", "amount", "due", "status", "flag"}))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		benchkit.Must(w.Write([]string{fmt.Sprintf("row %d", i), fmt.Sprint(rng.IntN(10000)), time.Date(2020, 1, 1+rng.IntN(3000), 0, 0, 0, 0, time.UTC).Format("2006-01-02"),
			[]string{"new", "open", "done", "closed"}[rng.IntN(4)], []string{"yes", "no"}[rng.IntN(2)]}))
	}
	w.Flush()
	benchkit.Must(f.Close())
	f, err = os.Open(path)
	benchkit.Must(err)
	began := time.Now()
	pv, err := e.svc.PreviewIntoList(ctx, e.admin, l.ID, "rows.csv", f)
	benchkit.Must(err)
	f.Close()
	previewed := time.Since(began)
	st, err := e.svc.ImportIntoList(ctx, e.admin, l.ID, lists.ItemsImport{UploadToken: pv.UploadToken})
	benchkit.Must(err)
	began = time.Now()
	for {
		ran, err := e.q.RunOnce(ctx)
		benchkit.Must(err)
		s, err := e.svc.ImportState(ctx, e.admin, l.ID, st.ID)
		benchkit.Must(err)
		if s.Status == lists.ExportDone || s.Status == lists.ExportFailed {
			took := time.Since(began)
			return fmt.Sprintf("import of %d rows: preview %.1f s, import %.1f s (%.0f rows/s), created %d, failed %d, status %s %s",
				n, previewed.Seconds(), took.Seconds(), float64(s.Created)/took.Seconds(), s.Created, s.Failed, s.Status, s.Error)
		}
		if !ran {
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// write measures the file writer alone: n synthetic rows of 10 typed cells.
func write(format string, n int) string {
	var c counter
	header := []string{"Title", "Name", "Amount", "Due", "Status", "Flag", "Code", "Score", "At", "Notes"}
	w, err := sheets.NewWriter(format, &c, "Bench", header)
	benchkit.Must(err)
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	row := make([]sheets.Cell, len(header))
	for i := 0; i < n; i++ {
		row[0] = sheets.Cell{Text: fmt.Sprintf("alpha beta %d", i)}
		row[1] = sheets.Cell{Text: "gamma delta"}
		row[2] = sheets.Cell{Kind: sheets.Number, Num: float64(i % 10000)}
		row[3] = sheets.Cell{Kind: sheets.Date, Time: base.AddDate(0, 0, i%3000)}
		row[4] = sheets.Cell{Text: "open"}
		row[5] = sheets.Cell{Kind: sheets.Bool, Bool: i%2 == 0}
		row[6] = sheets.Cell{Text: fmt.Sprintf("C-%06d", i)}
		row[7] = sheets.Cell{Kind: sheets.Number, Num: float64(i%997) / 10}
		row[8] = sheets.Cell{Kind: sheets.DateTime, Time: base.Add(time.Duration(i) * time.Minute)}
		row[9] = sheets.Cell{Text: "отчёт заявка договор"}
		benchkit.Must(w.Row(row))
	}
	benchkit.Must(w.Close())
	return fmt.Sprintf("write %s: %d rows, %.1f MB", format, n, float64(c.n)/1e6)
}
