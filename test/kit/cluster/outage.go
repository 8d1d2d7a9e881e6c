package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/test/kit"
)

// JobReport is a worker killed while it held claimed jobs.
type JobReport struct {
	Claimed int           // jobs running on the worker when it was killed
	Held    int           // of them, still running just after the kill
	CatchUp time.Duration // from the kill until every claimed job succeeded
}

// KillWorker queues slow mail jobs, kills the worker with SIGKILL once it
// runs some, starts a replacement no earlier than notBefore, and waits for
// the claimed jobs to succeed (at most 60 s after the kill).
func (c *Cluster) KillWorker(t testing.TB, notBefore time.Time) JobReport {
	t.Helper()
	admin := c.Admin(c.Pick(0))
	for i := range 6 {
		admin.Do(t, "POST", "/mail/send", map[string]any{"to": "ops@example.com", "subject": fmt.Sprint("job ", i), "text": "held by a worker"}).Expect(t, 202)
	}
	var running []map[string]any
	for end := time.Now().Add(20 * time.Second); len(running) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no mail job running within 20 s")
		}
		admin.Do(t, "GET", "/jobs?status=running&type=notifications.sendEmail&limit=100", nil).Expect(t, 200).Into(t, &running)
	}
	c.Worker.Kill()
	c.note("worker killed holding %d jobs", len(running))
	killed := time.Now()
	rep := JobReport{Claimed: len(running)}
	for _, j := range running {
		if admin.Do(t, "GET", "/jobs/"+j["id"].(string), nil).Expect(t, 200).Map(t)["status"] == "running" {
			rep.Held++
		}
	}
	time.Sleep(time.Until(notBefore))
	c.StartWorker()
	if waitJobs(t, admin, running, killed) {
		rep.CatchUp = time.Since(killed)
	}
	return rep
}

// waitJobs waits until the jobs succeeded, at most 60 s after since.
func waitJobs(t testing.TB, admin *kit.Client, jobs []map[string]any, since time.Time) bool {
	t.Helper()
	for _, j := range jobs {
		for {
			st := admin.Do(t, "GET", "/jobs/"+j["id"].(string), nil).Expect(t, 200).Map(t)["status"]
			if st == "succeeded" {
				break
			}
			if st == "failed" || time.Since(since) > 60*time.Second {
				t.Errorf("job %s claimed by the killed worker: %v %s after the kill", j["id"], st, time.Since(since).Round(time.Millisecond))
				return false
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return true
}

// S3Report is an S3 outage.
type S3Report struct {
	ReadyMax  time.Duration   // slowest /ready answer during the outage
	Detected  time.Duration   // from the stop until the last instance's /ready named blobs
	Downloads []int           // statuses of downloads during the outage, one per instance
	Took      []time.Duration // how long each of those downloads took to answer
	Recovered time.Duration   // from the restart until every instance was ready again
}

// StopS3 stops the S3 server for outage: every instance's /ready answers
// 503 naming blobs within 1 s per probe, and a download of file answers 503.
func (c *Cluster) StopS3(t testing.TB, f *Fixture, file int64, outage time.Duration) S3Report {
	t.Helper()
	var rep S3Report
	c.S3.Close()
	c.note("S3 stopped")
	down := time.Now()
	for _, a := range c.Alive() {
		c.readyNaming(t, a, down, &rep)
	}
	alive := c.Alive()
	rep.Downloads, rep.Took = make([]int, len(alive)), make([]time.Duration, len(alive))
	var wg sync.WaitGroup
	for i, a := range alive {
		run(&wg, func() {
			asked := time.Now()
			ans, err := c.Call(context.Background(), a, "GET", fmt.Sprintf("/libraries/%s/files/%d/download", f.LibID, file), nil, nil)
			rep.Took[i], rep.Downloads[i] = time.Since(asked), ans.Status
			if err != nil || ans.Status != 503 {
				t.Errorf("download from %s during the S3 outage: %d %v", a.Name, ans.Status, err)
			}
		})
	}
	wg.Wait()
	if rep.ReadyMax > time.Second {
		t.Errorf("/ready took %s during the S3 outage", rep.ReadyMax)
	}
	time.Sleep(time.Until(down.Add(outage)))
	c.S3.Restart(t)
	c.note("S3 back")
	back := time.Now()
	for _, a := range c.Alive() {
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if st, _, _ := ready(a); st == 200 {
				break
			}
		}
	}
	rep.Recovered = time.Since(back)
	return rep
}

// readyNaming polls a's /ready until it answers 503 naming blobs (10 s at most).
func (c *Cluster) readyNaming(t testing.TB, a *API, down time.Time, rep *S3Report) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, body, took := ready(a)
		rep.ReadyMax = max(rep.ReadyMax, took)
		if st == 503 && strings.Contains(body, `"blobs"`) {
			rep.Detected = max(rep.Detected, time.Since(down))
			return
		}
		if time.Now().After(end) {
			t.Errorf("/ready of %s during the S3 outage: %d %s", a.Name, st, body)
			return
		}
	}
}

func ready(a *API) (int, string, time.Duration) {
	began := time.Now()
	resp, err := client.Get(a.URL + "/ready")
	if err != nil {
		return 0, err.Error(), time.Since(began)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(began)
}
