package test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" driver for blocking the test database

	"coreportal/internal/store/storetest"
	"coreportal/test/kit"
)

// TestTransportDatabaseLoss: with the database lost while the service runs,
// requests answer 503 UNAVAILABLE (not 500), the outage is logged once and
// its end once, and the service recovers by itself (issue 9 item 11).
func TestTransportDatabaseLoss(t *testing.T) {
	t.Parallel()
	forEachBackendParallel(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "dbloss")
		admin := s.Admin(t)
		f.create(t, admin, map[string]any{"title": "before the outage"})
		errorsBefore := countLogs(s, `"level":"ERROR"`)

		restore := loseDatabase(t, s)
		for i := 0; i < 8; i++ {
			r := admin.Do(t, "GET", f.path("/items"), nil)
			if r.Status != 503 || r.Error.Code != "UNAVAILABLE" {
				t.Fatalf("listing during the outage: %d %s", r.Status, r.Raw)
			}
			admin.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "during"}}).Expect(t, 503, "UNAVAILABLE")
			time.Sleep(250 * time.Millisecond) // background loops poll meanwhile
		}
		if n := countLogs(s, "database unreachable"); n != 1 {
			t.Fatalf("outage logged %d times, want once:\n%s", n, s.Logs())
		}
		if n := countLogs(s, `"level":"ERROR"`) - errorsBefore; n != 1 {
			t.Fatalf("%d ERROR lines during the outage, want only the outage itself:\n%s", n, s.Logs())
		}

		restore()
		waitFor(t, 20*time.Second, "the service to answer again", func() bool {
			return admin.Do(t, "GET", f.path("/items"), nil).Status == 200
		})
		items, _ := f.list(t, admin, nil)
		if len(items) != 1 {
			t.Fatalf("items after the outage: %d, want only the one saved before", len(items))
		}
		f.create(t, admin, map[string]any{"title": "after the outage"})
		waitFor(t, 5*time.Second, "the end of the outage in the log", func() bool { return countLogs(s, "database reachable again") == 1 })
	})
}

// loseDatabase makes the server's database unusable and returns the function
// that brings it back: PostgreSQL refuses connections to the test database
// and its sessions are terminated; the SQLite file's header is overwritten.
func loseDatabase(t *testing.T, s *kit.Server) (restore func()) {
	t.Helper()
	if s.DBURL == "" {
		path := s.DataDir + "/core.db"
		// Move every committed page into the file first, so that the
		// server's connections must read the (overwritten) file itself.
		ck, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		// Let the set-up's jobs (indexing, events) settle first: their
		// writes are what could slip page 1 into the WAL after the break.
		// Waiting is best effort: the loop below handles a late write.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			var running int
			if err := ck.QueryRow("SELECT count(*) FROM jobs WHERE status = 'running'").Scan(&running); err == nil && running == 0 {
				before, _ := os.Stat(path + "-wal")
				time.Sleep(500 * time.Millisecond)
				after, _ := os.Stat(path + "-wal")
				if before != nil && after != nil && before.Size() == after.Size() && before.ModTime().Equal(after.ModTime()) {
					break
				}
			}
		}
		var busy, logged, moved int
		if err := ck.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved); err != nil || busy != 0 {
			t.Fatalf("checkpoint: busy=%d err=%v", busy, err)
		}
		ck.Close()
		fh, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		header := make([]byte, 100)
		if _, err := fh.ReadAt(header, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := fh.WriteAt(make([]byte, 100), 0); err != nil {
			t.Fatal(err)
		}
		// A background write of the server between the checkpoint and the
		// broken header puts page 1 into the WAL, where every connection
		// reads it instead of the file: empty the WAL again and break the
		// header once more until no frame slipped in between.
		for try := 0; try < 20; try++ {
			if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
				break
			}
			if _, err := fh.WriteAt(header, 0); err != nil {
				t.Fatal(err)
			}
			ck, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			_ = ck.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &moved)
			ck.Close()
			if _, err := fh.WriteAt(make([]byte, 100), 0); err != nil {
				t.Fatal(err)
			}
		}
		// A server connection keeps the pages it cached for as long as the
		// WAL index says nothing changed, and one that read page 1 between
		// the checkpoint and the broken header would go on answering from
		// its cache: zeroing both copies of the WAL index header makes every
		// connection rebuild the index from the (empty) WAL, see a changed
		// header, drop its cache and read the broken file.
		if shm, err := os.OpenFile(path+"-shm", os.O_RDWR, 0); err == nil {
			_, werr := shm.WriteAt(make([]byte, 96), 0)
			shm.Close()
			if werr != nil {
				t.Fatal(werr)
			}
		}
		restored := false
		restore = func() {
			if !restored {
				restored = true
				if _, err := fh.WriteAt(header, 0); err != nil {
					t.Fatal(err)
				}
				fh.Close()
				// A schema change makes every connection drop the pages it
				// cached while the header was broken (as a write by the
				// server itself would, if it could write).
				db, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := db.Exec("CREATE TABLE transport_probe (x INTEGER); DROP TABLE transport_probe"); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Cleanup(restore)
		return restore
	}
	u, err := url.Parse(s.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	adm, err := sql.Open("pgx", storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adm.Close() })
	exec := func(q string) {
		t.Helper()
		if _, err := adm.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false")
	exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> pg_backend_pid()")
	restored := false
	restore = func() {
		if !restored {
			restored = true
			exec("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS true")
		}
	}
	t.Cleanup(restore)
	return restore
}

// TestTransportRedisDown: with the Redis bus unreachable, item writes are not
// slowed (live events leave asynchronously through a circuit breaker), the
// outage is logged once and its end once.
func TestTransportRedisDown(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatal("redis-server is required (installed by .ci/run)")
	}
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			addr := kit.FreePort(t)
			stop := privateRedis(t, addr)
			s := kit.Start(t, b, "CORE_BUS_URL=redis://"+addr+"/0")
			f := newListFixture(t, s, "redisdown")
			admin := s.Admin(t)
			it := f.create(t, admin, map[string]any{"title": "live"})
			path := f.pathf("/items/%v", it["id"])
			admin.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"title": "warm"}}).Expect(t, 200)

			stop()
			start := time.Now()
			var slowest time.Duration
			for i := 0; i < 20; i++ {
				t0 := time.Now()
				admin.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("down %d", i)}}).Expect(t, 200)
				slowest = max(slowest, time.Since(t0))
			}
			// 0.85 s per write before the change; the machine is shared, so the bound is loose
			if total := time.Since(start); total > 5*time.Second || slowest > time.Second {
				t.Fatalf("20 writes with Redis down took %s (slowest %s)", total, slowest)
			}
			waitFor(t, 5*time.Second, "the outage in the log", func() bool { return countLogs(s, "redis bus unreachable") == 1 })
			if n := countLogs(s, "redis bus unreachable"); n != 1 {
				t.Fatalf("the Redis outage was logged %d times", n)
			}

			privateRedis(t, addr)
			back := 0
			waitFor(t, 40*time.Second, "the end of the outage in the log", func() bool {
				back++ // a changed value each time: a save that changes nothing sends no event
				admin.Do(t, "PATCH", path, map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("back %d", back)}}).Expect(t, 200)
				return countLogs(s, "redis bus reachable again") == 1
			})
			if n := countLogs(s, "redis bus unreachable"); n != 1 {
				t.Fatalf("the Redis outage was logged %d times", n)
			}

		})
	}
}

// privateRedis starts redis-server on addr and returns a function that stops it.
func privateRedis(t *testing.T, addr string) (stop func()) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("redis-server", "--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	t.Cleanup(stop)
	waitFor(t, 10*time.Second, "redis-server", func() bool {
		out, err := exec.Command("redis-cli", "-h", host, "-p", port, "ping").Output()
		return err == nil && strings.TrimSpace(string(out)) == "PONG"
	})
	return stop
}
