// Package cluster runs the scale-out topology against the real binary: api
// instances and a worker over one PostgreSQL database, Redis and an
// S3-compatible server (gofakes3), each api instance reaching Redis through
// its own loopback relay so that one instance's bus connection can be cut.
// It also drives the load (a writer, an uploader, live-stream watchers) and
// the outages, and counts what was acknowledged, found, missed and refused.
// The cluster test under test/ and the long form under bench/scaleout use it.
package cluster

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"coreportal/internal/blob/blobtest"
	"coreportal/internal/mail/mailtest"
	"coreportal/test/kit"
)

// Options shape a cluster. Zero durations take the defaults in brackets.
type Options struct {
	DBURL     string        // PostgreSQL database shared by every process
	RedisURL  string        // redis://host:port/db
	APIs      int           // api instances [3]
	Lease     time.Duration // CORE_JOB_LEASE [3s]
	Heartbeat time.Duration // CORE_JOB_HEARTBEAT [500ms]
	SweepAge  time.Duration // CORE_UPLOAD_SWEEP_AGE [2s]
	MailDelay time.Duration // the SMTP server's pause per message: jobs stay claimed [1s]
	Env       []string      // added to every process
}

// Cluster is the running topology.
type Cluster struct {
	Opts   Options
	Dir    string
	S3     *blobtest.S3Server
	SMTP   *mailtest.Server
	Token  string // the administrator's token, valid on every instance
	Worker *kit.Server

	root      testing.TB // processes and relays live as long as the test that started the cluster
	env       []string
	redisHost string
	redisDB   string
	mu        sync.Mutex
	apis      []*API
	serial    atomic.Int64
	core      minio.Core
	events    []Event
}

// API is one api instance and its relay to Redis.
type API struct {
	*kit.Server
	Name  string
	Relay *Relay
	dead  atomic.Bool
}

// Dead reports whether the instance was killed.
func (a *API) Dead() bool { return a.dead.Load() }

// Start starts S3, SMTP, the api instances and the worker.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	o = o.withDefaults()
	u, err := url.Parse(o.RedisURL)
	if err != nil || u.Host == "" {
		t.Fatalf("redis URL %q: %v", o.RedisURL, err)
	}
	c := &Cluster{Opts: o, Dir: t.TempDir(), S3: blobtest.StartS3(t), root: t, redisHost: u.Host, redisDB: u.Path}
	c.SMTP = mailtest.StartT(t, mailtest.Options{Delay: o.MailDelay})
	c.env = append(c.s3Env(),
		"CORE_JOB_LEASE="+o.Lease.String(), "CORE_JOB_HEARTBEAT="+o.Heartbeat.String(),
		"CORE_UPLOAD_SWEEP_AGE="+o.SweepAge.String(), "CORE_LIVE_MAX_STREAMS_PER_USER=200",
		"SMTP_HOST="+c.SMTP.Host, "SMTP_PORT="+strconv.Itoa(c.SMTP.Port), "SMTP_FROM=portal@example.com")
	c.env = append(c.env, o.Env...)
	c.StartAPI() // the first one migrates the database
	var wg sync.WaitGroup
	for range o.APIs - 1 {
		run(&wg, func() { c.StartAPI() })
	}
	run(&wg, func() { c.StartWorker() })
	wg.Wait()
	if len(c.Alive()) != o.APIs || c.Worker == nil {
		t.FailNow()
	}
	c.Token = c.apis[0].Admin(t).Token
	return c
}

func (o Options) withDefaults() Options {
	if o.APIs == 0 {
		o.APIs = 3
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.Lease, 3*time.Second)
	def(&o.Heartbeat, 500*time.Millisecond)
	def(&o.SweepAge, 2*time.Second)
	def(&o.MailDelay, time.Second)
	return o
}

// s3Env is the test bucket's environment with 5 MiB parts, so that a large
// upload leaves parts on the server while it is being sent.
func (c *Cluster) s3Env() []string {
	env := c.S3.Env()
	for i, e := range env {
		if strings.HasPrefix(e, "CORE_BLOB_URL=") {
			env[i] = e + "&partSizeMB=5"
		}
	}
	return env
}

// StartAPI starts one more api instance behind its own relay to Redis; it
// runs until the test that started the cluster ends.
func (c *Cluster) StartAPI() *API {
	relay := StartRelay(c.root, c.redisHost)
	env := append(append([]string(nil), c.env...), "CORE_BUS_URL=redis://"+relay.Addr+c.redisDB)
	a := &API{Server: kit.StartWith(c.root, c.Opts.DBURL, c.Dir, "api", env...), Relay: relay}
	c.mu.Lock()
	a.Name = fmt.Sprintf("api%d", len(c.apis))
	c.apis = append(c.apis, a)
	c.mu.Unlock()
	c.note("%s started", a.Name)
	return a
}

// StartWorker starts a worker; it becomes Worker and runs until the test
// that started the cluster ends. A worker sweeps unfinished blob writes when
// it starts.
func (c *Cluster) StartWorker() *kit.Server {
	env := append(append([]string(nil), c.env...), "CORE_BUS_URL=redis://"+c.redisHost+c.redisDB)
	w := kit.StartWith(c.root, c.Opts.DBURL, c.Dir, "worker", env...)
	c.mu.Lock()
	c.Worker = w
	c.mu.Unlock()
	return w
}

// Kill stops an api instance with SIGKILL.
func (c *Cluster) Kill(a *API) {
	a.dead.Store(true)
	a.Kill()
	c.note("%s killed", a.Name)
}

// Alive returns the api instances not killed, in start order.
func (c *Cluster) Alive() []*API {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*API
	for _, a := range c.apis {
		if !a.Dead() {
			out = append(out, a)
		}
	}
	return out
}

// Pick returns the n-th alive instance (round robin).
func (c *Cluster) Pick(n int) *API {
	alive := c.Alive()
	return alive[n%len(alive)]
}

// Admin is the administrator's client on an instance.
func (c *Cluster) Admin(a *API) *kit.Client {
	return &kit.Client{S: a.Server, Token: c.Token, HTTP: http.DefaultClient}
}

// Unique returns a name unique within the cluster's run.
func (c *Cluster) Unique(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1e9, c.serial.Add(1))
}
