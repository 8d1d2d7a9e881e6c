// Command search seeds a large searchable portal and measures the search
// index (issue #12) directly against SQLite or PostgreSQL, with the services
// the server uses.
//
//	go run ./bench/search seed   -db <postgres URL or sqlite file> -n 1000000 -nodes 200
//	go run ./bench/search crawl  -db <…>                 # empties the index, full crawl, items/s
//	go run ./bench/search query  -db <…> -iter 200 [-as admin]
//	go run ./bench/search create -db <…> -seconds 10 -workers 8 [-index=false] [-versioning=false]
//
// seed creates a root node "sbench" with -nodes child nodes, each with a list
// "docs" (title, a multiline body, a category), fills the lists with n items
// of Russian and English text through lists.SeedItems (multi-row inserts, no
// indexing), gives the user "sreader" view on every second node, then runs
// the crawl below once, so the index holds exactly what the server's
// crawler (and indexing on save, the same Doc of each item) produce.
// crawl clears the index and runs the crawler job's code (search.Service.Crawl
// over the nodes, lists and items sources as wired in the server) and reports
// items/s. query runs iter searches of two words drawn from the vocabulary
// (different each time) as the reader, page 1 of 20 with the total, and
// prints p50/p95/p99. create adds items to one seeded list through
// lists.CreateItem (validation, ACL, version, outbox, indexing in the same
// transaction) from workers goroutines, with the list's versioning switched
// on (-versioning=false: off); -index=false leaves the search index unwired,
// for the comparison.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/lists"
	"coreportal/internal/nodes"
	"coreportal/internal/search"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

type env struct {
	db     *store.DB
	lists  *lists.Service
	acl    *acl.Engine
	nodes  *nodes.Service
	index  *search.Service
	admin  *auth.Principal
	reader *auth.Principal
}

func open(ctx context.Context, dsn string, index bool) (*env, error) {
	url, path := "", dsn
	if strings.HasPrefix(dsn, "postgres") {
		url, path = dsn, ""
	}
	db, err := store.Open(ctx, url, path)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		return nil, err
	}
	b := bus.NewMemory()
	us := users.NewService(db, b)
	e := &env{db: db, acl: acl.New(db, b)}
	e.nodes = nodes.New(db, e.acl)
	e.lists = lists.NewService(db, e.acl, e.nodes)
	e.index = search.New(db, e.acl)
	e.acl.OnRescope(e.index.Rescope)
	if index {
		e.lists.UseIndex(e.index)
		e.nodes.OnSaved(func(ctx context.Context, n *nodes.Node) error { return e.index.Put(ctx, nodes.SearchDoc(n)) })
	}
	// the sources of the server's crawler that hold anything here (cmd/coreportal/serve_search.go)
	e.index.AddSource(search.Source{Name: "nodes", Page: e.nodes.SearchPage})
	e.index.AddSource(search.Source{Name: "lists", Page: e.lists.SearchListsPage})
	e.index.AddSource(search.Source{Name: "items", Page: e.lists.SearchItemsPage, Count: e.lists.SearchItemsCount})
	if _, err := us.Bootstrap(ctx, "admin", "bench-admin-password"); err != nil {
		return nil, err
	}
	a, err := us.AccountByLogin(ctx, "admin")
	if err != nil {
		return nil, err
	}
	e.admin = &auth.Principal{UserID: a.ID, Login: a.Login, DisplayName: a.DisplayName, IsAdmin: true}
	r, err := us.AccountByLogin(ctx, "sreader")
	if err != nil {
		u, err := us.Create(ctx, users.NewUser{Login: "sreader", Password: "bench-reader-password", DisplayName: "Search reader"})
		if err != nil {
			return nil, err
		}
		r.ID = u.ID
	}
	e.reader = &auth.Principal{UserID: r.ID, Login: "sreader", DisplayName: "Search reader"}
	return e, nil
}

// benchLists returns the ids of the seeded lists.
func benchLists(ctx context.Context, e *env) ([]string, error) {
	rows, err := e.db.Q(ctx).QueryContext(ctx, `SELECT l.id FROM lists l JOIN nodes n ON n.id = l.node_id JOIN nodes r ON r.id = n.parent_id
		WHERE r.slug = 'sbench' AND l.slug = 'docs' ORDER BY n.slug`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	if len(out) == 0 && rows.Err() == nil {
		return nil, fmt.Errorf("no seeded lists: run seed first")
	}
	return out, rows.Err()
}

func seed(ctx context.Context, e *env, n, nodeCount, batch int) error {
	if _, err := benchLists(ctx, e); err == nil {
		return fmt.Errorf("already seeded: use a fresh database")
	}
	root, err := e.nodes.Create(ctx, e.admin, nodes.NewNode{Slug: "sbench", Title: "Search bench"})
	if err != nil {
		return err
	}
	gen := newTextGen(1)
	var ids []string
	for i := 0; i < nodeCount; i++ {
		node, err := e.nodes.Create(ctx, e.admin, nodes.NewNode{ParentID: root.ID, Slug: fmt.Sprintf("n-%04d", i), Title: "Отдел " + gen.words(2), Description: gen.words(8)})
		if err != nil {
			return err
		}
		l, err := e.lists.Create(ctx, e.admin, lists.NewList{NodeID: node.ID, Title: "Документы " + gen.word(), Slug: "docs"})
		if err != nil {
			return err
		}
		for _, fd := range [][2]string{{"body", "multiline_text"}, {"category", "text"}} {
			name, typ := fd[0], fd[1]
			if _, err := e.lists.CreateField(ctx, e.admin, l.ID, lists.FieldInput{InternalName: &name, Title: &name, FieldType: &typ}); err != nil {
				return err
			}
		}
		if i%2 == 0 { // the reader views every second node
			if _, err := e.acl.Grant(ctx, acl.Ref{Type: acl.Node, ID: node.ID}, acl.PrincipalUser, e.reader.UserID, acl.View); err != nil {
				return err
			}
		}
		ids = append(ids, l.ID)
	}
	start := time.Now()
	per := n / nodeCount
	done := 0
	for li, id := range ids {
		count := per
		if li == len(ids)-1 {
			count = n - done
		}
		for off := 0; off < count; off += batch {
			rows := make([]lists.Values, 0, batch)
			for j := 0; j < min(batch, count-off); j++ {
				v := map[string]any{"title": gen.words(3 + gen.rng.IntN(4)), "body": gen.words(20 + gen.rng.IntN(40)), "category": gen.word()}
				vals := lists.Values{}
				for k, x := range v {
					vals[k], _ = json.Marshal(x)
				}
				rows = append(rows, vals)
			}
			if err := e.lists.SeedItems(ctx, e.admin, id, rows); err != nil {
				return err
			}
			done += len(rows)
		}
		if li%20 == 0 {
			fmt.Printf("seeded %d items in %s\n", done, time.Since(start).Round(time.Second))
		}
	}
	fmt.Printf("seeded %d items in %d lists in %s (%.0f items/s)\n", n, len(ids), time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
	if err := crawl(ctx, e); err != nil {
		return err
	}
	return analyze(ctx, e)
}

// analyze refreshes statistics (and, on PostgreSQL, the visibility map) after the bulk load.
func analyze(ctx context.Context, e *env) error {
	q := "VACUUM ANALYZE"
	if e.db.Dialect == store.SQLite {
		q = "ANALYZE"
	}
	t0 := time.Now()
	if _, err := e.db.W(ctx).ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	fmt.Printf("%s in %s\n", q, time.Since(t0).Round(time.Millisecond))
	return nil
}

func crawl(ctx context.Context, e *env) error {
	n, err := e.index.Clear(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("cleared %d entries; crawling\n", n)
	e.index.ReportProgress(func(_ context.Context, v any) error {
		r := v.(search.CrawlResult)
		fmt.Printf("  progress: %d indexed in %s\n", r.Indexed, time.Duration(r.ElapsedMS)*time.Millisecond)
		return nil
	})
	t0 := time.Now()
	res, err := e.index.Crawl(ctx)
	if err != nil {
		return err
	}
	el := time.Since(t0)
	fmt.Printf("crawl: %d entries (%v) in %s: %.0f entries/s\n", res.Indexed, res.BySource, el.Round(time.Millisecond), float64(res.Indexed)/el.Seconds())
	return nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	slices.Sort(d)
	return d[int(float64(len(d)-1)*p)]
}

// verbose lists the slowest queries of a query run.
var verbose *bool

func query(ctx context.Context, e *env, iter int, who string, limit int, seed uint64, page int) error {
	p := e.reader
	if who == "admin" {
		p = e.admin
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	gen := newTextGen(seed)
	var ds []time.Duration
	var totals []int
	slowest, slowQ := time.Duration(0), ""
	type run struct {
		q     string
		d     time.Duration
		total int
	}
	var runs []run
	for i := 0; i < iter; i++ {
		q := gen.queryWords()
		t0 := time.Now()
		f, err := e.index.Search(ctx, p, search.Request{Q: q, Page: page, Limit: limit})
		if err != nil {
			return err
		}
		total := f.Total
		d := time.Since(t0)
		if d > slowest {
			slowest, slowQ = d, q
		}
		ds = append(ds, d)
		totals = append(totals, total)
		runs = append(runs, run{fmt.Sprintf("#%d %s", i, q), d, total})
	}
	slices.Sort(totals)
	fmt.Printf("two-word query as %s, page %d of %d with total: iter=%d p50=%s p95=%s p99=%s max=%s (%q); total median=%d p95=%d max=%d\n",
		who, page, limit, iter, percentile(ds, .5).Round(time.Microsecond*100), percentile(ds, .95).Round(time.Microsecond*100),
		percentile(ds, .99).Round(time.Microsecond*100), slowest.Round(time.Microsecond*100), slowQ,
		totals[len(totals)/2], totals[len(totals)*95/100], totals[len(totals)-1])
	if *verbose {
		slices.SortFunc(runs, func(a, b run) int { return int(b.d - a.d) })
		for _, r := range runs[:min(5, len(runs))] {
			fmt.Printf("  slow: %q %s total %d\n", r.q, r.d.Round(time.Millisecond), r.total)
		}
	}
	return nil
}

func create(ctx context.Context, e *env, seconds, workers int, index, versioning, merge bool) error {
	ids, err := benchLists(ctx, e)
	if err != nil {
		return err
	}
	listID := ids[0]
	if _, err := e.lists.Update(ctx, e.admin, listID, lists.ListPatch{VersioningEnabled: &versioning}); err != nil {
		return err
	}
	if merge { // as the worker process does (search.Service.MergePending)
		mctx, stop := context.WithCancel(ctx)
		defer stop()
		go e.index.MergePending(mctx)
	}
	var n, failed atomic.Int64
	var mu sync.Mutex
	var ds []time.Duration
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gen := newTextGen(uint64(w + 100))
			for time.Now().Before(deadline) {
				vals := lists.Values{}
				for k, x := range map[string]any{"title": gen.words(4), "body": gen.words(40), "category": gen.word()} {
					vals[k], _ = json.Marshal(x)
				}
				t0 := time.Now()
				if _, err := e.lists.CreateItem(ctx, e.admin, listID, vals); err != nil {
					failed.Add(1)
					slog.Error("create", "err", err)
					continue
				}
				d := time.Since(t0)
				mu.Lock()
				ds = append(ds, d)
				mu.Unlock()
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	slices.Sort(ds)
	at := func(q float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[min(len(ds)-1, int(q*float64(len(ds))))].Round(100 * time.Microsecond)
	}
	fmt.Printf("created %d items (index %v, versioning %v, merge %v, %d workers) in %s: %.0f items/s, %d failed; per save p50 %s p99 %s max %s\n",
		n.Load(), index, versioning, merge, workers, el.Round(time.Millisecond), float64(n.Load())/el.Seconds(), failed.Load(), at(.5), at(.99), at(1))
	return nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: search seed|crawl|fold|query|create -db <dsn> [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dsn := fs.String("db", "search-bench.db", "PostgreSQL URL or SQLite file")
	n := fs.Int("n", 100000, "seed: items")
	nodeCount := fs.Int("nodes", 200, "seed: nodes, one list each")
	batch := fs.Int("batch", 2000, "seed: items per seeding transaction")
	iter := fs.Int("iter", 200, "query: searches")
	limit := fs.Int("limit", 20, "query: page size")
	page := fs.Int("page", 1, "query: page number (deep pages: e.g. 100)")
	who := fs.String("as", "reader", "query: reader (view on half the nodes) or admin")
	seconds := fs.Int("seconds", 10, "create: duration")
	workers := fs.Int("workers", 8, "create: concurrent writers")
	index := fs.Bool("index", true, "create: index items on save (false: search index not wired)")
	merge := fs.Bool("merge", true, "create: merge the GIN pending list every 2 s as the worker does (PostgreSQL)")
	versioning := fs.Bool("versioning", true, "create: versioning of the list on (a version row per item) or off")
	verbose = fs.Bool("v", false, "query: list the five slowest queries")
	qseed := fs.Uint64("seed", 0, "query: seed of the query words (0: a different set each run; fix it to compare builds)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	_ = fs.Parse(os.Args[2:])
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	// seed inserts without indexing (SeedItems would index item by item) and
	// then crawls, which writes the same entries in batches
	e, err := open(ctx, *dsn, os.Args[1] != "seed" && (os.Args[1] != "create" || *index))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer e.db.Close()
	switch os.Args[1] {
	case "seed":
		err = seed(ctx, e, *n, *nodeCount, *batch)
	case "crawl":
		err = crawl(ctx, e)
	case "fold": // PostgreSQL: fold the pending entries into the count bitmaps (after an upgrade migrated the index)
		t0 := time.Now()
		if err = e.index.FoldBits(ctx); err == nil {
			fmt.Printf("folded in %s\n", time.Since(t0).Round(time.Millisecond))
		}
	case "query":
		err = query(ctx, e, *iter, *who, *limit, *qseed, *page)
	case "create":
		err = create(ctx, e, *seconds, *workers, *index, *versioning, *merge)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
