// Command surveys is the benchmark of issue #15: it starts the real binary,
// creates a 20-question survey, stores N responses (default 100,000) through
// the surveys service in the same database, then measures GET …/stats over
// HTTP (p50/p95/max) and an XLSX export of every response (time to done,
// file size, and the server's resident memory before and at its peak).
//
//	go run ./bench/surveys -db sqlite -n 100000
//	go run ./bench/surveys -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' -n 100000
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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/google/uuid"

	"coreportal/bench/benchkit"
	"coreportal/internal/acl"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/menu"
	"coreportal/internal/nodes"
	"coreportal/internal/recyclebin"
	"coreportal/internal/routes"
	"coreportal/internal/store"
	"coreportal/internal/surveys"
)

func main() {
	dbFlag := flag.String("db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created and dropped)")
	n := flag.Int("n", 100_000, "responses")
	iter := flag.Int("iter", 100, "stats requests")
	batch := flag.Int("batch", 2000, "responses per seeding transaction")
	flag.Parse()

	dir, err := os.MkdirTemp("", "bench-surveys")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "coreportal")
	build := exec.Command("go", "build", "-o", bin, "./cmd/coreportal")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	benchkit.Must(build.Run())

	dbURL := ""
	if *dbFlag != "sqlite" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(*dbFlag, "bench_surveys")
		defer drop()
	}
	dataDir := filepath.Join(dir, "data")
	addr := benchkit.FreePort()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+dataDir, "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=bench-password-1", "CORE_ACCESS_LOG=false", "CORE_LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	c := &client{base: "http://" + addr + "/api/v1"}
	benchkit.WaitHealth("http://" + addr)
	c.token = c.call("POST", "/auth/login", map[string]any{"login": "admin", "password": "bench-password-1"})["token"].(string)

	// 30 users to choose in user questions
	names := map[string]string{}
	var userIDs []string
	for i := range 30 {
		login := fmt.Sprintf("person%02d", i)
		u := c.call("POST", "/admin/users", map[string]any{"login": login, "password": "Bench-pass-" + login + "-x", "displayName": "Person " + login, "email": login + "@example.com"})
		userIDs = append(userIDs, u["id"].(string))
		names[u["id"].(string)] = "Person " + login
	}
	node := c.call("POST", "/nodes", map[string]any{"slug": "bench", "title": "Bench"})["id"].(string)
	def := definition()
	sv := c.call("POST", "/surveys", map[string]any{"nodeId": node, "slug": "big", "title": "Big survey", "definition": def})
	id := sv["id"].(string)
	c.call("POST", "/surveys/"+id+"/publish", nil)

	// seed through the surveys service, in this process, on the same database
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL, filepath.Join(dataDir, "core.db"))
	benchkit.Must(err)
	svc := service(db, dataDir, names)
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	for done := 0; done < *n; {
		k := min(*batch, *n-done)
		rs := make([]surveys.SeedResponse, k)
		for i := range rs {
			rs[i] = surveys.SeedResponse{RespondentID: uuid.NewString(), Name: fmt.Sprintf("Respondent %d", done+i+1), Answers: answers(rng, userIDs)}
		}
		benchkit.Must(svc.SeedResponses(ctx, id, rs))
		done += k
		if done%20000 == 0 || done == *n {
			log.Printf("seeded %d responses (%.0f/s)", done, float64(done)/time.Since(start).Seconds())
		}
	}
	seedTime := time.Since(start)
	if db.Dialect == store.Postgres {
		for _, t := range []string{"survey_answers", "survey_responses", "survey_counts", "survey_respondents"} {
			_, err = db.W(ctx).ExecContext(ctx, "VACUUM ANALYZE "+t)
			benchkit.Must(err)
		}
	} else {
		_, err = db.W(ctx).ExecContext(ctx, "ANALYZE")
		benchkit.Must(err)
	}
	db.Close()

	// stats over HTTP
	c.call("GET", "/surveys/"+id+"/stats", nil) // warm
	lat := make([]time.Duration, 0, *iter)
	for range *iter {
		t0 := time.Now()
		st := c.call("GET", "/surveys/"+id+"/stats", nil)
		lat = append(lat, time.Since(t0))
		if st["answerCount"].(float64) != float64(*n) {
			log.Fatalf("answerCount %v", st["answerCount"])
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }

	// responses page (last page)
	t0 := time.Now()
	c.call("GET", fmt.Sprintf("/surveys/%s/responses?limit=50&page=%d", id, *n/50), nil)
	pageTime := time.Since(t0)

	// export: the server runs the job (serve = API + worker); its memory is
	// sampled while the export runs: anonymous memory (heap, stacks) and the
	// total, which also counts pages of the SQLite file mapped by mmap
	// (shared page cache, not the service's own memory)
	pid := cmd.Process.Pid
	_ = os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0) // reset the peak (VmHWM)
	rssBefore, anonBefore := benchkit.ProcKB(pid, "VmRSS"), benchkit.ProcKB(pid, "RssAnon")
	cpuBefore := benchkit.CPUTicks(pid)
	anonPeak := anonBefore
	t0 = time.Now()
	ex := c.call("POST", "/surveys/"+id+"/export", nil)
	var st map[string]any
	for {
		st = c.call("GET", "/surveys/"+id+"/export/"+ex["id"].(string), nil)
		anonPeak = max(anonPeak, benchkit.ProcKB(pid, "RssAnon"))
		if st["status"] == "done" || st["status"] == "failed" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	exportTime := time.Since(t0)
	exportCPU := float64(benchkit.CPUTicks(pid)-cpuBefore) / 100 // USER_HZ
	peak := benchkit.ProcKB(pid, "VmHWM")
	if st["status"] != "done" {
		log.Fatalf("export %v", st)
	}
	t0 = time.Now()
	size := c.download("/surveys/" + id + "/export/" + ex["id"].(string) + "/download")
	dlTime := time.Since(t0)

	dbName := "sqlite"
	if dbURL != "" {
		dbName = "postgres"
	}
	fmt.Printf("database=%s responses=%d questions=%d seed=%s (%.0f/s)\n", dbName, *n, len(def["questions"].([]any)), seedTime.Round(time.Millisecond), float64(*n)/seedTime.Seconds())
	fmt.Printf("stats: %d requests p50=%s p95=%s max=%s\n", *iter, pct(0.5).Round(100*time.Microsecond), pct(0.95).Round(100*time.Microsecond), lat[len(lat)-1].Round(100*time.Microsecond))
	fmt.Printf("responses last page (50 rows): %s\n", pageTime.Round(100*time.Microsecond))
	fmt.Printf("export: %s to done (server CPU %.1fs), rows=%v size=%.1fMB download=%s\n",
		exportTime.Round(time.Millisecond), exportCPU, st["rows"], float64(size)/1e6, dlTime.Round(time.Millisecond))
	fmt.Printf("export memory: anonymous before=%.1fMB peak=%.1fMB growth=%.1fMB; total RSS before=%.1fMB peak=%.1fMB (includes mmapped database pages)\n",
		float64(anonBefore)/1024, float64(anonPeak)/1024, float64(anonPeak-anonBefore)/1024, float64(rssBefore)/1024, float64(peak)/1024)
}

// definition has 20 questions: 6 single, 3 multiple, 3 text, 3 number, 2 date, 2 user, 1 users.
func definition() map[string]any {
	var qs []any
	opts := func(k int) []any {
		var o []any
		for i := range k {
			o = append(o, map[string]any{"id": fmt.Sprintf("o%d", i), "text": fmt.Sprintf("Option %d", i)})
		}
		return o
	}
	add := func(typ string, count int, options int) {
		for range count {
			q := map[string]any{"id": fmt.Sprintf("q%02d", len(qs)+1), "type": typ, "title": fmt.Sprintf("Question %d (%s)", len(qs)+1, typ)}
			if options > 0 {
				q["options"] = opts(options)
			}
			qs = append(qs, q)
		}
	}
	add("single", 6, 5)
	add("multiple", 3, 6)
	add("text", 3, 0)
	add("number", 3, 0)
	add("date", 2, 0)
	add("user", 2, 0)
	add("users", 1, 0)
	return map[string]any{"anonymous": false, "questions": qs}
}

func answers(r *rand.Rand, users []string) map[string]any {
	a := map[string]any{}
	for i := 1; i <= 20; i++ {
		q := fmt.Sprintf("q%02d", i)
		if i > 1 && r.IntN(10) == 0 {
			continue // about 10 % leave a question out
		}
		switch {
		case i <= 6:
			a[q] = map[string]any{"optionId": fmt.Sprintf("o%d", r.IntN(5))}
		case i <= 9:
			ids := []any{}
			for o := range 6 {
				if r.IntN(3) == 0 {
					ids = append(ids, fmt.Sprintf("o%d", o))
				}
			}
			a[q] = map[string]any{"optionIds": ids}
		case i <= 12:
			a[q] = map[string]any{"text": fmt.Sprintf("free text answer %d with some words", r.IntN(1_000_000))}
		case i <= 15:
			a[q] = map[string]any{"value": float64(r.IntN(100000)) / 100}
		case i <= 17:
			a[q] = map[string]any{"date": time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(2500)).Format(time.DateOnly)}
		case i <= 19:
			a[q] = map[string]any{"userId": users[r.IntN(len(users))]}
		default:
			var us []any
			for range 1 + r.IntN(3) {
				us = append(us, map[string]any{"userId": users[r.IntN(len(users))]})
			}
			a[q] = map[string]any{"users": us}
		}
	}
	return a
}

// service builds the surveys service on db (users resolved from the created ones).
func service(db *store.DB, dataDir string, names map[string]string) *surveys.Service {
	b := bus.NewMemory()
	engine := acl.New(db, b)
	n := nodes.New(db, engine)
	blobs, err := blob.NewLocal(filepath.Join(dataDir, "blobs"))
	benchkit.Must(err)
	return surveys.New(surveys.Deps{DB: db, ACL: engine, Nodes: n, Menu: menu.New(db, engine, n, routes.New(n, engine)),
		Bin: recyclebin.New(db, engine), Jobs: jobs.New(db), Blobs: blobs, Secret: []byte("bench"),
		UserName: func(_ context.Context, id string) (string, error) {
			if name, ok := names[id]; ok {
				return name, nil
			}
			return "", fault.NotFound("user")
		}})
}

type client struct {
	base, token string
}

func (c *client) call(method, path string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	var env struct {
		Data map[string]any `json:"data"`
	}
	benchkit.Must(json.Unmarshal(raw, &env))
	return env.Data
}

func (c *client) download(path string) int64 {
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		log.Fatalf("download: %d", resp.StatusCode)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	benchkit.Must(err)
	return n
}
