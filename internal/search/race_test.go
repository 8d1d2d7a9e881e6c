package search

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// actor is one party of a race (an upload, a text extraction, an isolation,
// a fold) running in its own goroutine. On PostgreSQL it pauses at the race
// hook points of the index (raceHook), so that a schedule decides which
// party goes on when; on SQLite, whose writers are serialised, it runs at
// once to its end.
type actor struct {
	name  string
	after *actor // starts only once this one is done
	run   func(ctx context.Context) error
	pid   atomic.Int64 // PostgreSQL backend of its transaction
	ev    chan string  // a pause point reached, or "" when done
	go_   chan struct{}
	state string // "", "paused", "running", "done"
	err   error
}

type actorKey struct{}

// scheduler drives actors through one schedule.
type scheduler struct {
	f      *fixture
	actors []*actor
}

func (s *scheduler) start(a *actor) {
	a.state, a.ev, a.go_ = "running", make(chan string, 1), make(chan struct{})
	go func() {
		ctx := context.WithValue(context.Background(), actorKey{}, a)
		a.err = a.run(ctx)
		a.ev <- ""
	}()
}

// blocked reports whether a's transaction waits for a lock (PostgreSQL).
func (s *scheduler) blocked(a *actor) bool {
	pid := a.pid.Load()
	if pid == 0 || s.f.db.Dialect != store.Postgres {
		return false
	}
	var waits bool
	err := s.f.db.Q(context.Background()).QueryRowContext(context.Background(),
		"SELECT COALESCE(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = ?", pid).Scan(&waits)
	return err == nil && waits
}

// settle waits until a running actor pauses, ends or waits for a lock.
func (s *scheduler) settle(a *actor) {
	s.f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for a.state == "running" {
		select {
		case p := <-a.ev:
			if p == "" {
				a.state = "done"
			} else {
				a.state = "paused"
			}
			continue
		case <-time.After(time.Millisecond):
		}
		if s.blocked(a) {
			return
		}
		if time.Now().After(deadline) {
			s.f.t.Fatalf("%s neither pauses nor ends", a.name)
		}
	}
}

func (s *scheduler) settleAll() {
	for _, a := range s.actors {
		s.settle(a)
	}
}

// step lets a go on to its next pause point: starts it, resumes it, or
// (when it waits for a lock or has ended) does nothing.
func (s *scheduler) step(a *actor) {
	s.settleAll()
	switch {
	case a.state == "" && (a.after == nil || a.after.state == "done"):
		s.start(a)
	case a.state == "paused":
		a.state = "running"
		a.go_ <- struct{}{}
	}
	s.settleAll()
}

// finish runs every actor to its end.
func (s *scheduler) finish() {
	s.f.t.Helper()
	for {
		s.settleAll()
		var next *actor
		allDone := true
		for _, a := range s.actors {
			if a.state != "done" {
				allDone = false
			}
			if next == nil && (a.state == "paused" || a.state == "" && (a.after == nil || a.after.state == "done")) {
				next = a
			}
		}
		if allDone {
			break
		}
		if next != nil {
			s.step(next)
		}
	}
	for _, a := range s.actors {
		if a.err != nil {
			s.f.t.Fatalf("%s: %v", a.name, a.err)
		}
	}
}

// inTx runs fn in a transaction of its own, noting the backend of a's
// transaction for the scheduler.
func (f *fixture) inTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return f.db.InTx(ctx, func(ctx context.Context, tx *store.Tx) error {
		if a, _ := ctx.Value(actorKey{}).(*actor); a != nil && f.db.Dialect == store.Postgres {
			var pid int64
			if err := tx.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return err
			}
			a.pid.Store(pid)
		}
		return fn(ctx)
	})
}

// interleavings returns every merge of the segment sequences of the named
// actors (each name repeated as often as it has segments), in a fixed order.
func interleavings(counts map[byte]int) []string {
	var names []byte
	for n := range counts {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []string
	var rec func(prefix []byte, left map[byte]int)
	rec = func(prefix []byte, left map[byte]int) {
		done := true
		for _, n := range names {
			if left[n] == 0 {
				continue
			}
			done = false
			left[n]--
			rec(append(prefix, n), left)
			left[n]++
		}
		if done {
			out = append(out, string(prefix))
		}
	}
	rec(nil, counts)
	return out
}

// raceWord is a distinct word per run.
func raceWord(i int) string {
	var b strings.Builder
	b.WriteString("kiwi")
	for range 4 {
		b.WriteByte(byte('a' + i%26))
		i /= 26
	}
	return b.String()
}

// TestIsolationRacesIndexing: an upload, its text extraction, the fold of
// the count bitmaps and the isolation of the new file (or of its folder)
// with the removal of the copied records, in every order and on PostgreSQL
// every interleaving of their steps at the index's race points: whatever
// runs last, the reader (view on the node, so on the library) finds the
// file exactly when the acl engine gives it view on it: never, in the end.
func TestIsolationRacesIndexing(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		pg := db.Dialect == store.Postgres
		nodeID := f.node("", "race")
		nref := acl.Ref{Type: acl.Node, ID: nodeID}
		libID := uuid.NewString()
		lib := f.object(acl.Library, nref, Doc{Type: TypeLibrary, ID: libID, NodeID: nodeID, ContainerID: libID, Slug: "docs", Title: "library"})
		f.grant(nref, acl.View)
		f.svc.st.raceHook = func(ctx context.Context, point string) {
			if a, _ := ctx.Value(actorKey{}).(*actor); a != nil && pg {
				a.ev <- point
				<-a.go_
			}
		}
		runs, start := 0, time.Now()
		run := func(name, schedule string, inFolder, isolateFolder bool) {
			runs++
			word := raceWord(runs)
			folder := f.object(acl.File, lib, Doc{Type: TypeFile, ID: uuid.NewString(), NodeID: nodeID, ContainerID: libID, Slug: "docs",
				Number: int64(2 * runs), Title: "folder " + word + "dir"})
			parent := lib
			if inFolder {
				parent = folder
			}
			file := acl.Ref{Type: acl.File, ID: uuid.NewString()}
			doc := Doc{Type: TypeFile, ID: file.ID, NodeID: nodeID, ContainerID: libID, Slug: "docs", Number: int64(2*runs + 1), Title: "report " + word}
			target := file
			if isolateFolder {
				target = folder
			}
			upload := &actor{name: "upload", run: func(ctx context.Context) error {
				return f.inTx(ctx, func(ctx context.Context) error {
					if err := f.acl.Register(ctx, file, &parent); err != nil {
						return err
					}
					d := doc
					d.Created = !inFolder
					return f.svc.Put(ctx, d)
				})
			}}
			extract := &actor{name: "extraction", after: upload, run: func(ctx context.Context) error {
				return f.inTx(ctx, func(ctx context.Context) error {
					d := doc
					d.Body = "the text of the " + word + " report"
					return f.svc.Put(ctx, d)
				})
			}}
			isolate := &actor{name: "isolation", run: func(ctx context.Context) error {
				if err := f.inTx(ctx, func(ctx context.Context) error { return f.acl.SetInherits(ctx, target, false) }); err != nil {
					return err
				}
				es, err := f.acl.Entries(ctx, target)
				for _, e := range es {
					if err == nil {
						err = f.acl.Revoke(ctx, e.ID)
					}
				}
				return err
			}}
			fold := &actor{name: "fold", run: func(ctx context.Context) error {
				return f.inTx(ctx, func(ctx context.Context) error { return f.svc.FoldBits(ctx) })
			}}
			if !isolateFolder {
				isolate.after = upload // the file must exist
			}
			s := &scheduler{f: f, actors: []*actor{upload, extract, isolate, fold}}
			byName := map[byte]*actor{'U': upload, 'E': extract, 'I': isolate, 'F': fold}
			for _, c := range []byte(schedule) {
				s.step(byName[c])
			}
			s.finish()
			lvl, err := f.acl.Level(context.Background(), f.reader, file)
			if err != nil {
				t.Fatal(err)
			}
			if lvl != acl.None {
				t.Fatalf("%s, schedule %s: the reader keeps level %d", name, schedule, lvl)
			}
			if got := f.searchLight(f.reader, word); len(got) != 0 {
				t.Errorf("%s, schedule %s: the reader finds %q, the acl engine gives level %d", name, schedule, got, lvl)
			}
		}
		// the upload comes first when the file itself is isolated; every
		// actor has one segment more than it has pause points on PostgreSQL
		seg := func(n int) int {
			if pg {
				return n
			}
			return 1
		}
		for _, inFolder := range []bool{false, true} {
			name := "file isolated at the root"
			if inFolder {
				name = "file isolated in a folder"
			}
			first := "U"
			if inFolder && pg {
				first = "UU" // on to its commit
			}
			for _, sc := range interleavings(map[byte]int{'E': seg(2), 'I': seg(4), 'F': 1}) {
				run(name, first+sc, inFolder, false)
			}
		}
		for _, sc := range interleavings(map[byte]int{'U': seg(2), 'E': seg(2), 'I': seg(4)}) {
			if strings.LastIndexByte(sc, 'U') < strings.IndexByte(sc, 'E') { // the extraction follows the upload's commit
				run("folder isolated", sc+"F", true, true)
			}
		}
		t.Logf("%s: %d interleavings in %v", db.Dialect, runs, time.Since(start).Round(time.Millisecond))
	})
}

// searchLight searches as a running service does (PostgreSQL: on the
// bitmaps and the pending entries) and on the rows alone; both must agree.
func (f *fixture) searchLight(p *auth.Principal, q string) []string {
	f.t.Helper()
	out := f.searchOnce(p, q)
	st := f.svc.st
	defer func(first bool) { st.passFirst = first }(st.passFirst)
	st.passFirst = true
	if rows := f.searchOnce(p, q); !slices.Equal(rows, out) {
		f.t.Fatalf("%q from the rows: %v, as the service searches: %v", q, rows, out)
	}
	return out
}
