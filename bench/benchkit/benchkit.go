// Package benchkit holds what the load harnesses under bench/ share: free
// loopback ports, a fresh PostgreSQL database per run, reading a process's
// memory from /proc, and waiting for /health.
package benchkit

import (
	"database/sql"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Must stops the harness on an error.
func Must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// FreePort returns a loopback address with a free port.
func FreePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Must(err)
	defer l.Close()
	return l.Addr().String()
}

// FreshDB creates a database named prefix_<random> on the PostgreSQL server
// of the admin URL and returns its URL and a function that drops it (call it
// after the server using it has stopped).
func FreshDB(admin, prefix string) (string, func()) {
	db, err := sql.Open("pgx", admin)
	Must(err)
	name := fmt.Sprintf("%s_%d", prefix, rand.Uint32())
	_, err = db.Exec("CREATE DATABASE " + name)
	Must(err)
	u, err := url.Parse(admin)
	Must(err)
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	}
}

// ProcKB reads a kB field of /proc/<pid>/status (VmRSS, VmHWM, RssAnon, …); 0 when unknown.
func ProcKB(pid int, field string) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			n, _ := strconv.Atoi(strings.Fields(line)[1])
			return n
		}
	}
	return 0
}

// CPUTicks is the user plus system CPU time of a process in clock ticks (1/100 s).
func CPUTicks(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// WaitHealth waits up to 30 s for GET base/health to answer 200.
func WaitHealth(base string) {
	for range 600 {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatal("server not ready")
}
