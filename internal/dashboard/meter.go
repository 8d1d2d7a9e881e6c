package dashboard

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Window is the sliding window of the load block.
const Window = 60 * time.Second

type bucket struct {
	sec    int64
	req    int64
	errs   int64
	latSum float64 // ms
	latMax float64 // ms
}

// Meter counts this process's requests per second over the last Window.
type Meter struct {
	mu      sync.Mutex
	buckets [60]bucket
	now     func() time.Time
}

// NewMeter builds an empty meter.
func NewMeter() *Meter { return &Meter{now: time.Now} }

// Observe records one finished request (a web.RouteObserver).
func (m *Meter) Observe(_, _ string, status int, elapsed time.Duration) {
	sec := m.now().Unix()
	ms := float64(elapsed.Microseconds()) / 1000
	m.mu.Lock()
	b := &m.buckets[sec%60]
	if b.sec != sec {
		*b = bucket{sec: sec}
	}
	b.req++
	if status >= 500 {
		b.errs++
	}
	b.latSum += ms
	if ms > b.latMax {
		b.latMax = ms
	}
	m.mu.Unlock()
}

// Totals are counters over the window.
type Totals struct {
	Requests  int64
	Errors    int64
	LatSumMs  float64
	LatMaxMs  float64
	MemoryMB  float64
	Started   time.Time
	LogDrops  int64
	SSEClient int64
}

// Snapshot sums the buckets of the last Window.
func (m *Meter) Snapshot() Totals {
	from := m.now().Unix() - 59
	var t Totals
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.buckets {
		if b.sec >= from {
			t.Requests += b.req
			t.Errors += b.errs
			t.LatSumMs += b.latSum
			t.LatMaxMs = max(t.LatMaxMs, b.latMax)
		}
	}
	return t
}

// MemoryMB is the resident memory of this process (VmRSS), or the memory
// the Go runtime holds from the OS where /proc is not available.
func MemoryMB() float64 {
	if raw, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
						return kb / 1024
					}
				}
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.Sys) / (1 << 20)
}
