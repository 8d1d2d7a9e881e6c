// Command webhooks measures whether webhook delivery slows item creation:
// it starts coreportal serve, creates -items list items from -clients
// clients without any receiver, then again with a webhooks.post receiver
// whose server answers after -delay, and prints both creation rates and how
// many deliveries arrived meanwhile and afterwards.
//
//	go run ./bench/webhooks -items 10000 -clients 8 -delay 500ms [-bin /tmp/cp] [-db postgres://…admin URL]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/bench/benchkit"
)

type env struct {
	base, token string
	client      *http.Client
}

func (e *env) do(method, path string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.base+"/api/v1"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	resp, err := e.client.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	var out struct {
		Data map[string]any `json:"data"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	_ = json.Unmarshal(raw, &out)
	return out.Data
}

// create makes n items from clients goroutines and returns items per second.
func (e *env) create(listID string, n, clients int) float64 {
	var next atomic.Int64
	began := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				e.do("POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("Item %d", i)}})
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(began).Seconds()
}

func main() {
	items := flag.Int("items", 10000, "items per phase")
	clients := flag.Int("clients", 8, "concurrent clients")
	delay := flag.Duration("delay", 500*time.Millisecond, "how long the webhook receiver takes to answer")
	bin := flag.String("bin", "", "coreportal binary (default: build ./cmd/coreportal)")
	admin := flag.String("db", "", "PostgreSQL admin URL (a fresh database per run); empty = SQLite")
	flag.Parse()
	dir, _ := os.MkdirTemp("", "bench-webhooks")
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "coreportal")
		b := exec.Command("go", "build", "-o", *bin, "./cmd/coreportal")
		b.Stderr = os.Stderr
		benchkit.Must(b.Run())
	}
	dbURL := ""
	if *admin != "" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(*admin, "bench_hooks")
		defer drop()
	}
	var got atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(*delay)
		got.Add(1)
	}))
	defer sink.Close()

	addr := benchkit.FreePort()
	cmd := exec.Command(*bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+filepath.Join(dir, "data"), "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=bench-password-1", "CORE_ACCESS_LOG=false", "CORE_LOG_LEVEL=warn", "CORE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1")
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	e := &env{base: "http://" + addr, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients}}}
	benchkit.WaitHealth(e.base)
	e.token = e.do("POST", "/auth/login", map[string]any{"login": "admin", "password": "bench-password-1"})["token"].(string)
	node := e.do("POST", "/nodes", map[string]any{"slug": "bench", "title": "Bench"})["id"].(string)
	plain := e.do("POST", "/lists", map[string]any{"nodeId": node, "slug": "plain", "title": "Plain"})["id"].(string)
	hooked := e.do("POST", "/lists", map[string]any{"nodeId": node, "slug": "hooked", "title": "Hooked"})["id"].(string)
	e.do("POST", "/event-receivers", map[string]any{"eventName": "listItem.created", "title": "Slow receiver", "serviceKey": "notifications",
		"jobType": "webhooks.post", "config": map[string]any{"url": sink.URL + "/hook", "secret": "bench-secret-0123456789", "listId": hooked}})

	without := e.create(plain, *items, *clients)
	fmt.Printf("without receiver: %d items in %.0f items/s\n", *items, without)
	with := e.create(hooked, *items, *clients)
	during := got.Load()
	fmt.Printf("with a receiver answering after %s: %d items in %.0f items/s (%.1f%% of the rate without); %d deliveries arrived meanwhile\n",
		*delay, *items, with, 100*with/without, during)
	began := time.Now()
	for got.Load() < int64(*items) && time.Since(began) < 30*time.Minute {
		time.Sleep(time.Second)
	}
	fmt.Printf("all %d deliveries arrived %.0f s after the last item (%.1f deliveries/s with 8 job workers)\n", got.Load(),
		time.Since(began).Seconds(), float64(got.Load()-during)/time.Since(began).Seconds())
}
