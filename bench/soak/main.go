// Command soak is the load harness of issue 9 item 1: it starts the real
// binary and drives a mixed workload with many keep-alive clients for
// minutes (filtered and sorted listings, item reads, creates, patches, small
// quick edits, /auth/me), then reports per-operation rates, latencies and
// statuses, checks that every acknowledged create is readable, and samples
// the server's resident memory.
//
//	go run ./bench/soak -db sqlite -clients 200 -duration 5m
//	go run ./bench/soak -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' -clients 200 -duration 5m
//
// It exits 1 when any request answered 499 or 5xx, failed at the transport,
// or when an acknowledged create cannot be read back.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"coreportal/bench/benchkit"
)

// op is one kind of request of the mix, with its share of the requests.
type op struct {
	name   string
	weight int
	run    func(c *client) (status int, err error)
}

// stats of one operation.
type stats struct {
	mu       sync.Mutex
	lat      []time.Duration
	statuses map[int]int
	errs     int
}

func (s *stats) add(d time.Duration, status int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errs++
		return
	}
	s.lat = append(s.lat, d)
	s.statuses[status]++
}

type harness struct {
	base   string
	token  string
	listID string
	hc     *http.Client

	mu      sync.Mutex
	numbers []int64          // items known to exist (seeded and acknowledged creates)
	created map[int64]string // acknowledged creates: number -> title
}

type client struct {
	h   *harness
	rnd *rand.Rand
}

func main() { os.Exit(run()) }

// run returns the exit code, so that the deferred clean-up (server stopped,
// database dropped, temporary folder removed) runs before the exit.
func run() int {
	dbFlag := flag.String("db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created)")
	clients := flag.Int("clients", 200, "concurrent keep-alive clients")
	duration := flag.Duration("duration", 5*time.Minute, "measured load duration")
	warmup := flag.Duration("warmup", 30*time.Second, "load before measuring (memory after it is the baseline)")
	seed := flag.Int("seed", 5000, "items created before the load")
	prebuilt := flag.String("bin", "", "use this coreportal binary instead of building ./cmd/coreportal")
	flag.Parse()

	dir, err := os.MkdirTemp("", "soak")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "coreportal")
	if *prebuilt != "" {
		bin = *prebuilt
	} else {
		build := exec.Command("go", "build", "-o", bin, "./cmd/coreportal")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		benchkit.Must(build.Run())
	}
	dbURL, dbName := "", "sqlite"
	if *dbFlag != "sqlite" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(*dbFlag, "bench_soak")
		defer drop()
		dbName = "postgres"
	}
	addr := benchkit.FreePort()
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	benchkit.Must(err)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+filepath.Join(dir, "data"), "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=soak-password-1", "CORE_ACCESS_LOG=false", "CORE_LOG_LEVEL=info")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	h := &harness{base: "http://" + addr, created: map[int64]string{}}
	h.hc = &http.Client{Transport: &http.Transport{MaxIdleConns: *clients + 8, MaxIdleConnsPerHost: *clients + 8, IdleConnTimeout: time.Minute}}
	waitReady(h.base)
	h.setup(*seed)
	log.Printf("database=%s clients=%d seeded=%d items; warm-up %s, then %s measured", dbName, *clients, len(h.numbers), *warmup, *duration)

	ops := h.ops()
	all := map[string]*stats{}
	for _, o := range ops {
		all[o.name] = &stats{statuses: map[int]int{}}
	}
	var measuring atomic.Bool
	ctx, cancel := context.WithTimeout(context.Background(), *warmup+*duration)
	defer cancel()
	var wg sync.WaitGroup
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := &client{h: h, rnd: rand.New(rand.NewPCG(uint64(i), 42))}
			for ctx.Err() == nil {
				pick := c.rnd.IntN(total)
				o := ops[0]
				for _, cand := range ops {
					if pick < cand.weight {
						o = cand
						break
					}
					pick -= cand.weight
				}
				t0 := time.Now()
				status, err := o.run(c)
				if ctx.Err() != nil && err != nil {
					return // the run ended mid-request: not a failure
				}
				if measuring.Load() {
					all[o.name].add(time.Since(t0), status, err)
				}
			}
		}(i)
	}
	pid := cmd.Process.Pid
	var rss, anon []int // MB, sampled every 10 s after the warm-up
	time.Sleep(*warmup)
	measuring.Store(true)
	start := time.Now()
	tick := time.NewTicker(10 * time.Second)
	rss, anon = append(rss, benchkit.ProcKB(pid, "VmRSS")/1024), append(anon, benchkit.ProcKB(pid, "RssAnon")/1024)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			rss, anon = append(rss, benchkit.ProcKB(pid, "VmRSS")/1024), append(anon, benchkit.ProcKB(pid, "RssAnon")/1024)
			log.Printf("%s: rss %d MB (anonymous %d MB)", time.Since(start).Round(time.Second), rss[len(rss)-1], anon[len(anon)-1])
		}
	}
	tick.Stop()
	wg.Wait()
	elapsed := time.Since(start)

	bad := report(dbName, *clients, elapsed, ops, all, rss, anon)
	missing := h.verify()
	fmt.Printf("acknowledged creates: %d, not readable afterwards: %d\n", len(h.created), missing)
	logs, _ := os.ReadFile(logPath)
	errLines := strings.Count(string(logs), `"level":"ERROR"`)
	cancelled := strings.Count(string(logs), "request cancelled")
	fmt.Printf("server log: %d ERROR lines, %d cancelled requests\n", errLines, cancelled)
	if bad > 0 || missing > 0 || errLines > 0 {
		return 1
	}
	return 0
}

// report prints the table and returns the number of bad answers (499, 5xx, transport errors).
func report(db string, clients int, elapsed time.Duration, ops []op, all map[string]*stats, rss, anon []int) int {
	fmt.Printf("\ndatabase=%s clients=%d measured=%s\n\n", db, clients, elapsed.Round(time.Second))
	fmt.Println("| operation | requests | per s | p50 | p95 | p99 | max | statuses |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	bad, sum := 0, 0
	for _, o := range ops {
		s := all[o.name]
		sort.Slice(s.lat, func(i, j int) bool { return s.lat[i] < s.lat[j] })
		pct := func(p float64) string {
			if len(s.lat) == 0 {
				return "-"
			}
			return fmtDur(s.lat[int(float64(len(s.lat)-1)*p)])
		}
		var codes []string
		for _, c := range sortedKeys(s.statuses) {
			codes = append(codes, fmt.Sprintf("%d: %d", c, s.statuses[c]))
			if c == 499 || c >= 500 {
				bad += s.statuses[c]
			}
		}
		if s.errs > 0 {
			codes = append(codes, fmt.Sprintf("transport errors: %d", s.errs))
			bad += s.errs
		}
		sum += len(s.lat)
		fmt.Printf("| %s | %d | %.1f | %s | %s | %s | %s | %s |\n", o.name, len(s.lat), float64(len(s.lat))/elapsed.Seconds(),
			pct(0.5), pct(0.95), pct(0.99), pct(1), strings.Join(codes, ", "))
	}
	fmt.Printf("\ntotal %d requests, %.0f/s; 499 + 5xx + transport errors: %d\n", sum, float64(sum)/elapsed.Seconds(), bad)
	memory := func(what string, xs []int) {
		if len(xs) == 0 {
			return
		}
		lo, hi := xs[0], xs[0]
		for _, r := range xs {
			lo, hi = min(lo, r), max(hi, r)
		}
		fmt.Printf("%s after warm-up: first %d MB, last %d MB, min %d MB, max %d MB (%d samples, 10 s apart)\n",
			what, xs[0], xs[len(xs)-1], lo, hi, len(xs))
	}
	// RSS also counts the pages of the SQLite file mapped with mmap (the
	// shared page cache); anonymous memory is the service's own heap and stacks.
	memory("resident memory (RSS)", rss)
	memory("anonymous memory (RssAnon)", anon)
	return bad
}

func (h *harness) ops() []op {
	return []op{
		{"list (filter + sort)", 25, func(c *client) (int, error) {
			lo := c.rnd.IntN(900)
			filter := fmt.Sprintf(`{"logic":"and","conditions":[{"column":"amount","operator":"gte","value":%d},{"column":"amount","operator":"lt","value":%d}]}`, lo, lo+100)
			sorts := []string{"due:desc", "amount:asc", "title:asc", "item_number:desc"}
			q := url.Values{"filter": {filter}, "sort": {sorts[c.rnd.IntN(len(sorts))]}, "limit": {"50"}}
			return h.do("GET", "/lists/"+h.listID+"/items?"+q.Encode(), nil, nil)
		}},
		{"item read", 20, func(c *client) (int, error) {
			return h.do("GET", fmt.Sprintf("/lists/%s/items/%d", h.listID, h.pick(c)), nil, nil)
		}},
		{"create", 15, func(c *client) (int, error) {
			title := fmt.Sprintf("soak %d", c.rnd.Int64())
			var out struct{ Data struct{ ID int64 } }
			st, err := h.do("POST", "/lists/"+h.listID+"/items", map[string]any{"fieldValues": values(c, title)}, &out)
			if err == nil && st == 201 {
				h.acknowledge(out.Data.ID, title)
			}
			return st, err
		}},
		{"patch", 15, func(c *client) (int, error) {
			return h.do("PATCH", fmt.Sprintf("/lists/%s/items/%d", h.listID, h.pick(c)),
				map[string]any{"fieldValues": map[string]any{"amount": c.rnd.IntN(1000)}}, nil)
		}},
		{"quick edit (3 updates, 2 creates)", 5, func(c *client) (int, error) {
			var ups, crs []any
			for range 3 {
				ups = append(ups, map[string]any{"id": h.pick(c), "fieldValues": map[string]any{"amount": c.rnd.IntN(1000)}})
			}
			titles := map[string]string{}
			for i := range 2 {
				id := fmt.Sprintf("r%d", i)
				titles[id] = fmt.Sprintf("soak quick %d", c.rnd.Int64())
				crs = append(crs, map[string]any{"clientRowId": id, "fieldValues": values(c, titles[id])})
			}
			var out struct {
				Data struct {
					Created []struct {
						ClientRowID string `json:"clientRowId"`
						ID          int64  `json:"id"`
					} `json:"created"`
					Errors []struct{ Message string } `json:"errors"`
				}
			}
			st, err := h.do("POST", "/lists/"+h.listID+"/items/quick-edit", map[string]any{"updates": ups, "creates": crs}, &out)
			if err == nil && st == 200 {
				for _, cr := range out.Data.Created {
					h.acknowledge(cr.ID, titles[cr.ClientRowID])
				}
				if len(out.Data.Errors) > 0 {
					return 599, nil // a row failed: counted as a server failure
				}
			}
			return st, err
		}},
		{"auth/me", 20, func(c *client) (int, error) { return h.do("GET", "/auth/me", nil, nil) }},
	}
}

func values(c *client, title string) map[string]any {
	return map[string]any{"title": title, "amount": c.rnd.IntN(1000),
		"due": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, c.rnd.IntN(365)).Format("2006-01-02")}
}

func (h *harness) pick(c *client) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.numbers[c.rnd.IntN(len(h.numbers))]
}

func (h *harness) acknowledge(n int64, title string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.numbers = append(h.numbers, n)
	h.created[n] = title
}

// do sends one request; out (optional) receives the decoded envelope.
func (h *harness) do(method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.base+"/api/v1"+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil && resp.StatusCode < 300 {
			return resp.StatusCode, fmt.Errorf("decode: %w", err)
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// setup signs in, creates a node and a list with fields, and seeds items.
func (h *harness) setup(seed int) {
	var login struct{ Data struct{ Token string } }
	mustStatus(h.do("POST", "/auth/login", map[string]string{"login": "admin", "password": "soak-password-1"}, &login))
	h.token = login.Data.Token
	var node, list struct{ Data struct{ ID string } }
	mustStatus(h.do("POST", "/nodes", map[string]any{"slug": "soak", "title": "Soak"}, &node))
	mustStatus(h.do("POST", "/lists", map[string]any{"nodeId": node.Data.ID, "title": "Soak", "slug": "soak"}, &list))
	h.listID = list.Data.ID
	for name, typ := range map[string]string{"amount": "number", "due": "date"} {
		mustStatus(h.do("POST", "/lists/"+h.listID+"/fields", map[string]any{"title": name, "internalName": name, "fieldType": typ}, nil))
	}
	c := &client{h: h, rnd: rand.New(rand.NewPCG(7, 7))}
	for done := 0; done < seed; {
		n := min(500, seed-done)
		var crs []any
		for i := range n {
			crs = append(crs, map[string]any{"clientRowId": strconv.Itoa(i), "fieldValues": values(c, fmt.Sprintf("seed %d", done+i))})
		}
		var out struct {
			Data struct {
				Created []struct{ ID int64 } `json:"created"`
			}
		}
		mustStatus(h.do("POST", "/lists/"+h.listID+"/items/quick-edit", map[string]any{"creates": crs}, &out))
		for _, cr := range out.Data.Created {
			h.numbers = append(h.numbers, cr.ID)
		}
		done += n
	}
}

// verify reads every item back (pages of 500 by number) and counts the
// acknowledged creates that are missing or carry another title.
func (h *harness) verify() int {
	seen := map[int64]string{}
	for page := 1; ; page++ {
		var out struct {
			Data []struct {
				ID          int64          `json:"id"`
				FieldValues map[string]any `json:"field_values"`
			}
			Meta struct{ TotalPages int } `json:"meta"`
		}
		st, err := h.do("GET", fmt.Sprintf("/lists/%s/items?limit=500&page=%d&sort=item_number:asc", h.listID, page), nil, &out)
		if err != nil || st != 200 {
			log.Fatalf("verify page %d: %d %v", page, st, err)
		}
		for _, it := range out.Data {
			title := ""
			for _, v := range it.FieldValues {
				if s, ok := v.(string); ok && strings.HasPrefix(s, "soak") {
					title = s
				}
			}
			seen[it.ID] = title
		}
		if page >= out.Meta.TotalPages {
			break
		}
	}
	missing := 0
	for n, title := range h.created {
		if seen[n] != title {
			missing++
		}
	}
	return missing
}

func waitReady(base string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatal("server did not start")
}

func mustStatus(st int, err error) {
	if err != nil || st >= 300 {
		log.Fatalf("setup request: %d %v", st, err)
	}
}

func fmtDur(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}

func sortedKeys(m map[int]int) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
