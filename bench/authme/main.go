// Command authme is the load harness of the foundation issue: it starts the
// real binary, signs in, and drives GET /api/v1/auth/me with N concurrent
// clients over loopback, reporting requests/s, latency percentiles, start-up
// time, the server's CPU time per request and its resident memory idle and
// under load.
//
//	go run ./bench/authme -db sqlite -clients 64 -duration 10s
//	go run ./bench/authme -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//	go run ./bench/authme -teeab -rounds 6 -duration 5s [-accesslog]   # application-log tee cost
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/bench/benchkit"
)

type options struct {
	db, cpuProfile    string
	clients           int
	duration, warmup  time.Duration
	accessLog         bool
	env               []string
	bin, dir, adminDB string
}

type result struct {
	startup      time.Duration
	requests     int
	errors       int64
	elapsed      time.Duration
	p50, p99     time.Duration
	cpuTicks     int
	idle, loaded int
	peak         int
	db           string
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// cpuPerReq is the server's user+system CPU time per request in µs.
func (r result) cpuPerReq() float64 { return float64(r.cpuTicks) * 10000 / float64(r.requests) }

func main() {
	var o options
	flag.StringVar(&o.db, "db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created)")
	flag.IntVar(&o.clients, "clients", 64, "concurrent clients")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured load duration")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before measuring")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a server CPU profile taken during the load to this file")
	prebuilt := flag.String("bin", "", "use this coreportal binary instead of building ./cmd/coreportal (compare two builds)")
	flag.BoolVar(&o.accessLog, "accesslog", false, "CORE_ACCESS_LOG=true: one log line (and application log record) per request")
	teeAB := flag.Bool("teeab", false, "compare the application-log tee on and off: builds ./cmd/coreportal twice (the B side with -ldflags -X main.benchNoTee=1) and alternates runs")
	rounds := flag.Int("rounds", 6, "with -teeab: runs per side, alternated")
	logLevel := flag.String("loglevel", "warn", "CORE_LOG_LEVEL of the server (what its stdout log keeps)")
	flag.Parse()
	o.env = []string{"CORE_LOG_LEVEL=" + *logLevel}

	dir, err := os.MkdirTemp("", "authme")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	o.dir, o.adminDB = dir, o.db
	if *teeAB {
		teeCompare(o, *rounds)
		return
	}
	o.bin = *prebuilt
	if o.bin == "" {
		o.bin = build(dir, "coreportal")
	}
	r := run(o)
	fmt.Printf("database=%s clients=%d duration=%s\n", r.db, o.clients, r.elapsed.Round(time.Millisecond))
	fmt.Printf("startup=%s requests=%d errors=%d rps=%.0f p50=%s p99=%s server_cpu_per_request=%.1fµs\n", r.startup.Round(time.Millisecond), r.requests, r.errors,
		r.rps(), r.p50, r.p99, r.cpuPerReq())
	fmt.Printf("rss_idle=%.1fMB rss_loaded=%.1fMB rss_peak=%.1fMB\n", float64(r.idle)/1024, float64(r.loaded)/1024, float64(r.peak)/1024)
}

func build(dir, name string, ldflags ...string) string {
	bin := filepath.Join(dir, name)
	args := []string{"build", "-o", bin}
	if len(ldflags) > 0 {
		args = append(args, "-ldflags", ldflags[0])
	}
	b := exec.Command("go", append(args, "./cmd/coreportal")...)
	b.Stdout, b.Stderr = os.Stderr, os.Stderr
	benchkit.Must(b.Run())
	return bin
}

// teeCompare alternates runs of the binary with the tee (A) and without it
// (B) and compares the server's CPU time per request, which, unlike
// requests/s, hardly depends on how busy the rest of the machine is.
func teeCompare(o options, rounds int) {
	on := build(o.dir, "coreportal-tee")
	off := build(o.dir, "coreportal-notee", "-X main.benchNoTee=1")
	var a, b []result
	for i := 0; i < rounds; i++ {
		for _, side := range []string{"on", "off"} {
			if i%2 == 1 { // ABBA order: drifts in machine load hit both sides alike
				side = map[string]string{"on": "off", "off": "on"}[side]
			}
			o.bin = on
			if side == "off" {
				o.bin = off
			}
			r := run(o)
			fmt.Printf("round %d tee %-3s: %7.0f req/s, server CPU %6.1f µs/request (%d requests, %d errors), load %s\n",
				i+1, side, r.rps(), r.cpuPerReq(), r.requests, r.errors, loadAvg())
			if side == "on" {
				a = append(a, r)
			} else {
				b = append(b, r)
			}
		}
	}
	med := func(rs []result, f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		if len(v)%2 == 0 {
			return (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		return v[len(v)/2]
	}
	cpu := func(r result) float64 { return r.cpuPerReq() }
	rps := func(r result) float64 { return r.rps() }
	ca, cb := med(a, cpu), med(b, cpu)
	ra, rb := med(a, rps), med(b, rps)
	fmt.Printf("median server CPU per request: tee on %.1f µs, tee off %.1f µs: the tee costs %+.1f %% (throughput at equal CPU %+.1f %%)\n",
		ca, cb, (ca-cb)/cb*100, (cb/ca-1)*100)
	fmt.Printf("median requests/s (load-dependent, for reference): tee on %.0f, tee off %.0f (%+.1f %%)\n", ra, rb, (ra-rb)/rb*100)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return string(bytes.Join(bytes.Fields(b)[:3], []byte(" ")))
}

func run(o options) result {
	data, err := os.MkdirTemp(o.dir, "data")
	benchkit.Must(err)
	defer os.RemoveAll(data)
	dbURL := ""
	if o.adminDB != "sqlite" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(o.adminDB, "bench_authme")
		defer drop()
	}
	addr, pprofAddr := benchkit.FreePort(), benchkit.FreePort()
	cmd := exec.Command(o.bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+data, "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=bench-password-1", "CORE_ACCESS_LOG="+strconv.FormatBool(o.accessLog), "CORE_PPROF_ADDR="+pprofAddr)
	cmd.Env = append(cmd.Env, o.env...)
	start := time.Now()
	benchkit.Must(cmd.Start())
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }
	defer stop()
	base := "http://" + addr
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Since(start) > 30*time.Second {
			log.Fatal("server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	res := result{startup: time.Since(start), db: "sqlite"}
	if dbURL != "" {
		res.db = "postgres"
	}

	body, _ := json.Marshal(map[string]string{"login": "admin", "password": "bench-password-1"})
	resp, err := http.Post(base+"/api/v1/auth/login", "application/json", bytes.NewReader(body))
	benchkit.Must(err)
	var login struct{ Data struct{ Token string } }
	benchkit.Must(json.NewDecoder(resp.Body).Decode(&login))
	resp.Body.Close()
	time.Sleep(500 * time.Millisecond)
	res.idle = benchkit.ProcKB(cmd.Process.Pid, "VmRSS")

	tr := &http.Transport{MaxIdleConns: o.clients, MaxIdleConnsPerHost: o.clients, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var measuring atomic.Bool
	var errors atomic.Int64
	lat := make([][]time.Duration, o.clients)
	ctx, cancel := context.WithTimeout(context.Background(), o.warmup+o.duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < o.clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequest("GET", base+"/api/v1/auth/me", nil)
			req.Header.Set("Authorization", "Bearer "+login.Data.Token)
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						errors.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errors.Add(1)
				}
				if measuring.Load() {
					lat[i] = append(lat[i], time.Since(t0))
				}
			}
		}(i)
	}
	time.Sleep(o.warmup)
	measuring.Store(true)
	cpu0, t0 := benchkit.CPUTicks(cmd.Process.Pid), time.Now()
	if o.cpuProfile != "" {
		go profile("http://"+pprofAddr, o.duration-time.Second, o.cpuProfile)
	}
	time.Sleep(o.duration - 50*time.Millisecond)
	res.loaded = benchkit.ProcKB(cmd.Process.Pid, "VmRSS")
	wg.Wait()
	res.elapsed = time.Since(t0)
	res.cpuTicks = benchkit.CPUTicks(cmd.Process.Pid) - cpu0
	res.peak = benchkit.ProcKB(cmd.Process.Pid, "VmHWM")
	res.errors = errors.Load()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[int(float64(len(all)-1)*p)]
	}
	res.requests, res.p50, res.p99 = len(all), pct(0.50), pct(0.99)
	return res
}

func profile(base string, d time.Duration, path string) {
	resp, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds())))
	if err != nil {
		log.Printf("profile: %v", err)
		return
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	benchkit.Must(err)
	defer f.Close()
	_, _ = io.Copy(f, resp.Body)
}
