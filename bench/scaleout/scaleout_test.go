// Package scaleout is the long form of the scale-out probe: the topology
// and outages of test/scaleout_cluster_test.go (test/kit/cluster) under load
// for a set duration, printing what was acknowledged, found, missed and
// refused. It runs only when asked: see README.md and ./run.
package scaleout

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
	"coreportal/test/kit/cluster"
)

var (
	enabled  = flag.Bool("scaleout", false, "run the long form (off: the test skips)")
	duration = flag.Duration("duration", 3*time.Minute, "how long the load runs")
	outage   = flag.Duration("outage", 10*time.Second, "length of the bus cut and of the S3 outage")
	watchers = flag.Int("watchers", 7, "live-stream clients per api instance")
)

// report collects the figures of each phase.
type report struct {
	bus    cluster.BusReport
	create cluster.CreateReport
	upload cluster.UploadReport
	jobs   cluster.JobReport
	s3     cluster.S3Report
}

func TestScaleoutLong(t *testing.T) {
	if !*enabled {
		t.Skip("long form: go test ./bench/scaleout -run TestScaleoutLong -args -scaleout (see README.md)")
	}
	redis := os.Getenv("TEST_REDIS_URL")
	if redis == "" || len(kit.Backends(t)) < 2 {
		t.Fatal("TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL must be set")
	}
	kit.Binary(t)
	load0 := loadavg()
	c := cluster.Start(t, cluster.Options{DBURL: kit.Backends(t)[1].DatabaseURL(t), RedisURL: redis, SweepAge: 10 * time.Second,
		Env: []string{"CORE_LOG_LEVEL=info"}})
	f := c.NewFixture(t)
	load := c.StartLoad(t, f, *watchers)
	began := time.Now()
	at := func(frac float64) { time.Sleep(time.Until(began.Add(time.Duration(frac * float64(*duration))))) }
	var r report
	at(0.10)
	r.bus = c.CutBus(t, load, c.Pick(0), *outage)
	at(0.25)
	pending := c.KillDuringCreate(t, f, c.Pick(2))
	c.StartAPI()
	at(0.40)
	r.upload = c.KillMidUpload(t, f, c.Pick(1))
	c.StartAPI()
	at(0.55)
	r.jobs = c.KillWorker(t, r.upload.Initiated.Add(c.Opts.SweepAge+time.Second))
	c.WaitUploadGone(t, &r.upload, 30*time.Second)
	at(0.70)
	r.s3 = c.StopS3(t, f, load.WaitUpload(t, 30*time.Second), *outage)
	at(1)
	ran := time.Since(began)
	r.create = pending.Wait()
	load.Stop(10 * time.Second)
	tally := load.Verify(t)
	fmt.Print(figures(r, tally, load, ran, load0), load.Around(c.Events(), tally.Missed))
}

func figures(r report, tl cluster.Tally, l *cluster.Load, ran time.Duration, load0 string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("scale-out long form: %s of load, 3 api instances + worker, load average %s at start, %s at end", ran.Round(time.Second), load0, loadavg())
	p("creates: %d sent, %d acknowledged, %d found, lost %d, doubled %d", tl.Attempts, tl.Creates, tl.CreatesFound, tl.Creates-tl.CreatesFound, tl.Duplicates)
	p("uploads: %d acknowledged, %d found, lost %d, corrupt %d", tl.Uploads, tl.UploadsFound, tl.Uploads-tl.UploadsFound, tl.Corrupt)
	conn, drops, resyncs := 0, 0, 0
	for _, w := range l.Watchers {
		c, d, s := w.Stats()
		conn, drops, resyncs = conn+c, drops+d, resyncs+s
	}
	p("watchers: %d, streams opened %d, ended %d, resyncs %d; (watcher, save) pairs %d, missed %d", len(l.Watchers), conn, drops, resyncs, tl.SavePairs, tl.SaveMissed)
	p("bus cut of %s: %d saves through it, every watcher had them (or a resync) %s after the bus came back, %d pairs missing", r.bus.Instance, r.bus.Saved, r.bus.Delivered.Round(time.Millisecond), r.bus.Missing)
	p("create cut off by the kill of %s: first %q, final %d after %d retries, %s after the kill, copies %d", r.create.Instance, r.create.First, r.create.Final, r.create.Retries, r.create.Took.Round(time.Millisecond), r.create.Copies)
	p("upload cut off by the kill of %s: %d parts on S3 at the kill, gone %s after the kill", r.upload.Instance, r.upload.Parts, r.upload.Gone.Round(time.Millisecond))
	p("worker killed holding %d jobs (%d still running after the kill): all succeeded %s after the kill", r.jobs.Claimed, r.jobs.Held, r.jobs.CatchUp.Round(time.Millisecond))
	p("S3 stopped: /ready named blobs after %s (slowest probe %s), downloads %v in %v, ready again %s after the restart",
		r.s3.Detected.Round(time.Millisecond), r.s3.ReadyMax.Round(time.Millisecond), r.s3.Downloads, roundAll(r.s3.Took), r.s3.Recovered.Round(time.Millisecond))
	return b.String()
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
