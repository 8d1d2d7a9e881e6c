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

// race is the setting of the race tests: a node the reader views, a
// library under it and a scheduler hook that pauses actors on PostgreSQL.
type race struct {
	f      *fixture
	pg     bool
	nodeID string
	libID  string
	lib    acl.Ref
	runs   int
}

func newRace(t *testing.T, db *store.DB) *race {
	r := &race{f: newFixture(t, db), pg: db.Dialect == store.Postgres}
	r.nodeID = r.f.node("", "race")
	nref := acl.Ref{Type: acl.Node, ID: r.nodeID}
	r.libID = uuid.NewString()
	r.lib = r.f.object(acl.Library, nref, Doc{Type: TypeLibrary, ID: r.libID, NodeID: r.nodeID, ContainerID: r.libID, Slug: "docs", Title: "library"})
	r.f.grant(nref, acl.View)
	r.f.svc.st.raceHook = func(ctx context.Context, point string) {
		if a, _ := ctx.Value(actorKey{}).(*actor); a != nil && r.pg {
			a.ev <- point
			<-a.go_
		}
	}
	return r
}

// seg is the number of segments of an actor with n-1 pause points: one on
// SQLite, where an actor runs at once to its end.
func (r *race) seg(n int) int {
	if r.pg {
		return n
	}
	return 1
}

// doc returns a new file (not registered yet) with its entry and a word
// that only its entry holds.
func (r *race) doc() (acl.Ref, Doc, string) {
	r.runs++
	word := raceWord(r.runs)
	file := acl.Ref{Type: acl.File, ID: uuid.NewString()}
	return file, Doc{Type: TypeFile, ID: file.ID, NodeID: r.nodeID, ContainerID: r.libID, Slug: "docs", Number: int64(2*r.runs + 1), Title: "report " + word}, word
}

// folder registers and indexes a new folder.
func (r *race) folder(parent acl.Ref) acl.Ref {
	return r.f.object(acl.File, parent, Doc{Type: TypeFile, ID: uuid.NewString(), NodeID: r.nodeID, ContainerID: r.libID, Slug: "docs",
		Number: int64(2 * r.runs), Title: "folder"})
}

// put is an actor indexing d in a transaction of its own (an upload when it
// registers the file first, else a text extraction).
func (r *race) put(name string, d Doc, register *acl.Ref) *actor {
	return &actor{name: name, run: func(ctx context.Context) error {
		return r.f.inTx(ctx, func(ctx context.Context) error {
			if register != nil {
				if err := r.f.acl.Register(ctx, acl.Ref{Type: acl.File, ID: d.ID}, register); err != nil {
					return err
				}
			}
			return r.f.svc.Put(ctx, d)
		})
	}}
}

// inherit is an actor changing the inheritance of target; isolating it, it
// then deletes the records that isolating copied.
func (r *race) inherit(target acl.Ref, inherits bool) *actor {
	return &actor{name: "isolation", run: func(ctx context.Context) error {
		if err := r.f.inTx(ctx, func(ctx context.Context) error { return r.f.acl.SetInherits(ctx, target, inherits) }); err != nil || inherits {
			return err
		}
		es, err := r.f.acl.Entries(ctx, target)
		for _, e := range es {
			if err == nil {
				err = r.f.acl.Revoke(ctx, e.ID)
			}
		}
		return err
	}}
}

func (r *race) fold() *actor {
	return &actor{name: "fold", run: func(ctx context.Context) error {
		return r.f.inTx(ctx, func(ctx context.Context) error { return r.f.svc.FoldBits(ctx) })
	}}
}

// play runs actors (named by a letter) along schedule and checks that the
// reader finds the file by word exactly when the acl engine gives it view.
func (r *race) play(name, schedule string, actors map[byte]*actor, file acl.Ref, word string) {
	t := r.f.t
	t.Helper()
	s := &scheduler{f: r.f}
	for _, c := range []byte("UEIJF") {
		if a := actors[c]; a != nil {
			s.actors = append(s.actors, a)
		}
	}
	for _, c := range []byte(schedule) {
		s.step(actors[c])
	}
	s.finish()
	lvl, err := r.f.acl.Level(context.Background(), r.f.reader, file)
	if err != nil {
		t.Fatal(err)
	}
	got := r.f.searchLight(r.f.reader, word)
	if (len(got) > 0) != (lvl >= acl.View) {
		t.Errorf("%s, schedule %s: the reader finds %q, the acl engine gives level %d", name, schedule, got, lvl)
	}
}

// TestIsolationRacesIndexing: an upload, its text extraction, the fold of
// the count bitmaps and the isolation of the new file (or of its folder)
// with the removal of the copied records, in every order and on PostgreSQL
// every interleaving of their steps at the index's race points: whatever
// runs last, the reader (view on the node, so on the library) finds the
// file exactly when the acl engine gives it view on it (never, in the end).
func TestIsolationRacesIndexing(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		r := newRace(t, db)
		start := time.Now()
		for _, inFolder := range []bool{false, true} {
			name, first := "file isolated at the root", "U"
			if inFolder {
				name = "file isolated in a folder"
				if r.pg {
					first = "UU" // on to its commit: the file must exist
				}
			}
			for _, sc := range interleavings(map[byte]int{'E': r.seg(2), 'I': r.seg(4), 'F': 1}) {
				parent := r.lib
				if inFolder {
					parent = r.folder(r.lib)
				}
				file, d, word := r.doc()
				up, text := d, d
				up.Created, text.Body = !inFolder, "the text of the "+word+" report"
				upload := r.put("upload", up, &parent)
				extract := r.put("extraction", text, nil)
				extract.after = upload
				isolate := r.inherit(file, false)
				isolate.after = upload
				r.play(name, first+sc, map[byte]*actor{'U': upload, 'E': extract, 'I': isolate, 'F': r.fold()}, file, word)
			}
		}
		for _, sc := range interleavings(map[byte]int{'U': r.seg(2), 'E': r.seg(2), 'I': r.seg(4)}) {
			if strings.LastIndexByte(sc, 'U') > strings.IndexByte(sc, 'E') {
				continue // the extraction follows the upload's commit
			}
			folder := r.folder(r.lib)
			file, d, word := r.doc()
			text := d
			text.Body = "the text of the " + word + " report"
			upload := r.put("upload", d, &folder)
			extract := r.put("extraction", text, nil)
			extract.after = upload
			r.play("folder isolated", sc+"F", map[byte]*actor{'U': upload, 'E': extract, 'I': r.inherit(folder, false), 'F': r.fold()}, file, word)
		}
		t.Logf("%s: %d interleavings in %v", db.Dialect, r.runs, time.Since(start).Round(time.Millisecond))
	})
}

// TestNestedInheritanceChangesRace: a folder regains inheritance while the
// folder above it is isolated (its copied records removed), in every
// interleaving on PostgreSQL: neither waits for the other for good, and the
// file below both ends hidden, as the acl engine decides.
func TestNestedInheritanceChangesRace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		r := newRace(t, db)
		for _, sc := range interleavings(map[byte]int{'I': r.seg(4), 'J': r.seg(4)}) {
			outer := r.folder(r.lib)
			inner := r.folder(outer)
			r.f.tx(func(ctx context.Context) error { return r.f.acl.SetInherits(ctx, inner, false) })
			file, d, word := r.doc()
			r.f.tx(func(ctx context.Context) error {
				if err := r.f.acl.Register(ctx, file, &inner); err != nil {
					return err
				}
				return r.f.svc.Put(ctx, d)
			})
			r.play("nested", sc, map[byte]*actor{'I': r.inherit(inner, true), 'J': r.inherit(outer, false)}, file, word)
		}
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
