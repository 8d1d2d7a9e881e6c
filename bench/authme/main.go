// Command authme is the load harness of the foundation issue: it starts the
// real binary, signs in, and drives GET /api/v1/auth/me with N concurrent
// clients over loopback, reporting requests/s, latency percentiles, start-up
// time and the server's resident memory idle and under load.
//
//	go run ./bench/authme -db sqlite -clients 64 -duration 10s
//	go run ./bench/authme -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
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

func main() {
	dbFlag := flag.String("db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created)")
	clients := flag.Int("clients", 64, "concurrent clients")
	duration := flag.Duration("duration", 10*time.Second, "measured load duration")
	warmup := flag.Duration("warmup", 2*time.Second, "warm-up before measuring")
	cpuProfile := flag.String("cpuprofile", "", "write a server CPU profile taken during the load to this file")
	prebuilt := flag.String("bin", "", "use this coreportal binary instead of building ./cmd/coreportal (compare two builds)")
	accessLog := flag.Bool("accesslog", false, "CORE_ACCESS_LOG=true: one log line (and application log record) per request")
	flag.Parse()

	dir, err := os.MkdirTemp("", "authme")
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

	dbURL := ""
	if *dbFlag != "sqlite" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(*dbFlag, "bench_authme")
		defer drop()
	}
	addr, pprofAddr := benchkit.FreePort(), benchkit.FreePort()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+filepath.Join(dir, "data"), "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=bench-password-1", "CORE_ACCESS_LOG="+strconv.FormatBool(*accessLog), "CORE_LOG_LEVEL=warn", "CORE_PPROF_ADDR="+pprofAddr)
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
	startup := time.Since(start)

	body, _ := json.Marshal(map[string]string{"login": "admin", "password": "bench-password-1"})
	resp, err := http.Post(base+"/api/v1/auth/login", "application/json", bytes.NewReader(body))
	benchkit.Must(err)
	var login struct{ Data struct{ Token string } }
	benchkit.Must(json.NewDecoder(resp.Body).Decode(&login))
	resp.Body.Close()
	time.Sleep(500 * time.Millisecond)
	idle := benchkit.ProcKB(cmd.Process.Pid, "VmRSS")

	tr := &http.Transport{MaxIdleConns: *clients, MaxIdleConnsPerHost: *clients, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	var measuring atomic.Bool
	var errors atomic.Int64
	lat := make([][]time.Duration, *clients)
	ctx, cancel := context.WithTimeout(context.Background(), *warmup+*duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < *clients; i++ {
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
	time.Sleep(*warmup)
	measuring.Store(true)
	t0 := time.Now()
	if *cpuProfile != "" {
		go profile("http://"+pprofAddr, *duration-time.Second, *cpuProfile)
	}
	time.Sleep(*duration - 50*time.Millisecond)
	loaded := benchkit.ProcKB(cmd.Process.Pid, "VmRSS")
	wg.Wait()
	elapsed := time.Since(t0)

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
	db := "sqlite"
	if dbURL != "" {
		db = "postgres"
	}
	fmt.Printf("database=%s clients=%d duration=%s\n", db, *clients, elapsed.Round(time.Millisecond))
	fmt.Printf("startup=%s requests=%d errors=%d rps=%.0f p50=%s p99=%s\n", startup.Round(time.Millisecond), len(all), errors.Load(),
		float64(len(all))/elapsed.Seconds(), pct(0.50), pct(0.99))
	fmt.Printf("rss_idle=%.1fMB rss_loaded=%.1fMB rss_peak=%.1fMB\n", float64(idle)/1024, float64(loaded)/1024, float64(benchkit.ProcKB(cmd.Process.Pid, "VmHWM"))/1024)
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
