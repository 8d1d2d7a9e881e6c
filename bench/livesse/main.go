// Command livesse measures the live-update hub: N concurrent SSE subscribers
// on one hub over loopback HTTP, one item_updated published every interval.
// The hub runs in a child process (so its memory is measured alone); this
// process is the load generator. Reports p50/p99/max delivery latency
// (publish call to event parsed by the client) and the hub process memory.
//
//	go run ./bench/livesse -clients 5000 -interval 100ms -duration 20s [-bus redis://127.0.0.1:6379/0]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/internal/bus"
	"coreportal/internal/live"
)

func main() {
	role := flag.String("role", "driver", "driver or hub (internal)")
	clients := flag.Int("clients", 5000, "concurrent SSE subscribers")
	interval := flag.Duration("interval", 100*time.Millisecond, "publish period")
	duration := flag.Duration("duration", 20*time.Second, "publishing time")
	busURL := flag.String("bus", "", "redis:// URL; empty = in-process bus")
	flag.Parse()
	if *role == "hub" {
		if path := os.Getenv("LIVESSE_CPUPROFILE"); path != "" {
			f, _ := os.Create(path)
			_ = pprof.StartCPUProfile(f)
			go func() { time.Sleep(12 * time.Second); pprof.StopCPUProfile(); f.Close() }()
		}
		runHub(*busURL)
		return
	}
	drive(*clients, *interval, *duration, *busURL)
}

// runHub serves the hub: /live?ids= (SSE), /publish?n= and /mem.
func runHub(busURL string) {
	var b bus.Bus = bus.NewMemory()
	if busURL != "" {
		r, err := bus.NewRedis(busURL)
		if err != nil {
			log.Fatal(err)
		}
		b = r
	}
	h := live.NewHub(b)
	h.MaxStreams, h.MaxStreamsPerUser = 0, 0 // one process plays every client
	mux := http.NewServeMux()
	const list = "bench-list"
	mux.HandleFunc("GET /live", func(w http.ResponseWriter, r *http.Request) {
		var ids []int64
		for _, s := range strings.Split(r.URL.Query().Get("ids"), ",") {
			n, _ := strconv.ParseInt(s, 10, 64)
			ids = append(ids, n)
		}
		_ = h.Stream(w, r, live.Watch{ListID: list, IDs: ids, CanView: func(context.Context, int64) bool { return true }})
	})
	mux.HandleFunc("POST /publish", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.ParseInt(r.URL.Query().Get("n"), 10, 64)
		item := map[string]any{"id": n, "updated_at": time.Now().UTC(), "updated_by": "00000000-0000-0000-0000-000000000001",
			"updated_by_user": map[string]any{"display_name": "Bench"}, "field_values": map[string]any{"sent": time.Now().UnixNano()}}
		if err := h.PublishItem(r.Context(), list, n, item); err != nil {
			http.Error(w, err.Error(), 500)
		}
	})
	mux.HandleFunc("GET /mem", func(w http.ResponseWriter, r *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss, hwm := procMem("VmRSS"), procMem("VmHWM")
		fmt.Fprintf(w, `{"rssMB":%.1f,"hwmMB":%.1f,"heapMB":%.1f,"goroutines":%d,"subs":%d,"dropped":%d}`,
			rss, hwm, float64(ms.HeapInuse)/(1<<20), runtime.NumGoroutine(), h.Subscriptions(), h.Dropped())
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	log.Fatal(http.Serve(ln, mux))
}

func procMem(key string) float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key+":") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func drive(n int, interval, duration time.Duration, busURL string) {
	self, _ := os.Executable()
	cmd := exec.Command(self, "-role", "hub", "-bus", busURL)
	cmd.Stderr = os.Stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + strings.TrimSpace(addr)
	tr := &http.Transport{MaxIdleConns: n + 10, MaxIdleConnsPerHost: n + 10, MaxConnsPerHost: 0, DisableCompression: true}
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var mu sync.Mutex
	lat := make([]time.Duration, 0, n*int(duration/interval+1))
	var connected, events atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// every client watches item 1 and a few others, like a list page does
			ids := fmt.Sprintf("1,%d,%d", 2+i%50, 100+i%97)
			// a raw connection: the load generator shares the CPU with the hub, so it reads as cheaply as it can
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				log.Printf("connect: %v", err)
				return
			}
			defer conn.Close()
			context.AfterFunc(ctx, func() { conn.Close() })
			fmt.Fprintf(conn, "GET /live?ids=%s HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n", ids)
			connected.Add(1)
			sc := bufio.NewScanner(conn)
			sc.Buffer(make([]byte, 4<<10), 1<<20)
			var local []time.Duration
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				recv := time.Now().UnixNano()
				// cheap extraction keeps the load generator from being the bottleneck
				if i := bytes.Index(line, []byte(`"sent":`)); i > 0 {
					rest := line[i+7:]
					j := bytes.IndexAny(rest, ",}")
					if sent, err := strconv.ParseInt(string(rest[:max(j, 0)]), 10, 64); err == nil {
						local = append(local, time.Duration(recv-sent))
						events.Add(1)
					}
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
		if i%500 == 499 {
			time.Sleep(50 * time.Millisecond) // do not flood the accept queue
		}
	}
	for connected.Load() < int64(n) && time.Since(start) < 60*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("connected %d/%d subscribers in %s\n", connected.Load(), n, time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second)
	idle := mem(client, base)
	fmt.Printf("hub idle with %d subscribers: %s\n", n, idle)

	tick := time.NewTicker(interval)
	stop := time.After(duration)
	published := 0
	peak := ""
	lastMem := time.Now()
loop:
	for {
		select {
		case <-stop:
			break loop
		case <-tick.C:
			resp, err := client.Post(base+"/publish?n=1", "text/plain", nil)
			if err != nil {
				log.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			published++
			if time.Since(lastMem) > 2*time.Second {
				peak = mem(client, base)
				lastMem = time.Now()
			}
		}
	}
	tick.Stop()
	time.Sleep(2 * time.Second) // let the last events arrive
	final := mem(client, base)
	cancel()
	wg.Wait()
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	fmt.Printf("published %d events, every %s, to %d subscribers: %d deliveries expected, %d received (%.2f%%)\n",
		published, interval, n, published*n, len(lat), 100*float64(len(lat))/float64(max(1, published*n)))
	fmt.Printf("delivery latency p50 %s  p90 %s  p99 %s  max %s\n", pct(.5).Round(10*time.Microsecond), pct(.9).Round(10*time.Microsecond),
		pct(.99).Round(10*time.Microsecond), pct(1).Round(10*time.Microsecond))
	fmt.Printf("hub under load: %s\nhub at end: %s\n", peak, final)
}

func mem(c *http.Client, base string) string {
	resp, err := c.Get(base + "/mem")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
