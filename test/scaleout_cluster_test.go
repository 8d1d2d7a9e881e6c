package test

import (
	"testing"
	"time"

	"coreportal/test/kit"
	"coreportal/test/kit/cluster"
)

// startScaleCluster starts three api instances and a worker over
// PostgreSQL, Redis (each instance through its own relay) and an
// S3-compatible server, with the fixture the load works on.
func startScaleCluster(t *testing.T) (*cluster.Cluster, *cluster.Fixture) {
	t.Helper()
	redis := redisURL(t)
	var pg kit.Backend
	for _, b := range kit.Backends(t) {
		if b.Name == "postgres" {
			pg = b
		}
	}
	if pg.Name == "" {
		t.Skip("PostgreSQL not configured")
	}
	lockRedisBus(t)
	c := cluster.Start(t, cluster.Options{DBURL: pg.DatabaseURL(t), RedisURL: redis, APIs: 3})
	return c, c.NewFixture(t)
}

// TestScaleOutResilience is the short form of the scale-out probe
// (bench/scaleout runs the long form): three api instances and a worker
// over PostgreSQL, Redis and an S3-compatible server, with a writer, an
// uploader and live-stream watchers running throughout. One instance's
// Redis connection is cut: every save made through it meanwhile reaches
// every watcher, or a resync does, within 5 s of the bus coming back. A
// create in flight when its instance is killed, retried with its
// Idempotency-Key on the others, exists once. An instance killed mid-upload
// leaves no multipart upload once the next worker has swept. The worker
// killed while it holds claimed jobs: a replacement finishes them within
// 60 s. S3 stopped: downloads answer 503 and /ready answers within a second
// naming blobs. Nothing acknowledged is lost or doubled.
func TestScaleOutResilience(t *testing.T) {
	t.Parallel()
	kit.Binary(t)
	began := time.Now()
	c, f := startScaleCluster(t)
	load := c.StartLoad(t, f, 2)
	t.Logf("cluster started in %s", time.Since(began).Round(time.Millisecond))

	t.Run("bus-cut", func(t *testing.T) {
		rep := c.CutBus(t, load, c.Pick(0), 10*time.Second)
		t.Logf("%+v", rep)
	})
	create := c.KillDuringCreate(t, f, c.Pick(2))
	c.StartAPI()
	var upload cluster.UploadReport
	t.Run("instance-killed-mid-upload", func(t *testing.T) {
		upload = c.KillMidUpload(t, f, c.Pick(1))
		c.StartAPI()
	})
	t.Run("worker-killed", func(t *testing.T) {
		rep := c.KillWorker(t, upload.Initiated.Add(c.Opts.SweepAge+500*time.Millisecond))
		t.Logf("%+v", rep)
	})
	t.Run("upload-parts-swept", func(t *testing.T) {
		if upload.UploadID == "" {
			t.Skip("no upload was cut off")
		}
		c.WaitUploadGone(t, &upload, 15*time.Second)
		t.Logf("%+v", upload)
	})
	t.Run("s3-down", func(t *testing.T) {
		file := load.WaitUpload(t, 20*time.Second)
		t.Logf("%+v", c.StopS3(t, f, file, 2*time.Second))
	})
	t.Run("create-retried-after-kill", func(t *testing.T) {
		t.Logf("%+v", create.Wait())
	})
	t.Run("nothing-lost", func(t *testing.T) {
		load.Stop(5 * time.Second)
		tally := load.Verify(t)
		t.Logf("creates %d/%d found, %d doubled; uploads %d/%d found, %d corrupt; watcher misses %d of %d\n%s",
			tally.CreatesFound, tally.Creates, tally.Duplicates, tally.UploadsFound, tally.Uploads, tally.Corrupt,
			tally.SaveMissed, tally.SavePairs, load.Around(c.Events(), tally.Missed))
	})
	t.Logf("took %s", time.Since(began).Round(time.Millisecond))
}
