package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"mime/multipart"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ClientError is one failed client request.
type ClientError struct {
	At       time.Time
	Op, Inst string
	Err      string
}

// Load is the traffic running during a test: a writer creating items and
// saving the watched ones, an uploader, and live-stream watchers.
type Load struct {
	c      *Cluster
	f      *Fixture
	cancel context.CancelFunc // the writer and the uploader
	watchX context.CancelFunc // the watchers
	wg     sync.WaitGroup
	wwg    sync.WaitGroup

	mu       sync.Mutex
	created  map[string]int64   // title → item id, acknowledged
	uploaded map[int64][32]byte // file id → content hash, acknowledged
	saved    []Save             // acknowledged saves of watched items
	errs     []ClientError
	Watchers []*Watcher
	attempts atomic.Int64
}

// Save is one acknowledged save of a watched item.
type Save struct {
	Value, Inst string
	At          time.Time
}

// StartLoad starts watchers per instance and, once a probe save reached
// every one of them, a writer and an uploader.
func (c *Cluster) StartLoad(t testing.TB, f *Fixture, watchersPerAPI int) *Load {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	wctx, watchX := context.WithCancel(context.Background())
	l := &Load{c: c, f: f, cancel: cancel, watchX: watchX, created: map[string]int64{}, uploaded: map[int64][32]byte{}}
	for i := range watchersPerAPI * len(c.Alive()) {
		w := newWatcher(c, f, i)
		l.Watchers = append(l.Watchers, w)
		run(&l.wwg, func() { w.run(wctx) })
	}
	t.Cleanup(func() { l.Stop(0) })
	l.waitWatching(t)
	run(&l.wg, func() { l.writer(ctx) })
	run(&l.wg, func() { l.uploader(ctx) })
	return l
}

// waitWatching saves a watched item every half second until one save
// reached every watcher (30 s at most).
func (l *Load) waitWatching(t testing.TB) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		v := l.c.Unique("p")
		path := fmt.Sprintf("/lists/%s/items/%d", l.f.ListID, l.f.Watched[0])
		_, _ = l.c.Call(context.Background(), l.c.Pick(1), "PATCH", path, map[string]any{"fieldValues": map[string]any{"title": v}}, nil)
		for wait := time.Now().Add(500 * time.Millisecond); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
			if l.uncovered([]string{v}, time.Now()) == 0 {
				return
			}
		}
	}
	t.Fatal("no save reached every watcher within 30 s")
}

func run(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() { defer wg.Done(); fn() }()
}

// Stop ends the writer and the uploader, gives the watchers up to settle to
// receive the last saves, then ends them.
func (l *Load) Stop(settle time.Duration) {
	l.cancel()
	l.wg.Wait()
	for end := time.Now().Add(settle); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if m, _, _ := l.MissedSaves(); m == 0 {
			break
		}
	}
	l.watchX()
	l.wwg.Wait()
}

func (l *Load) fail(op string, a *API, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, ClientError{At: time.Now(), Op: op, Inst: a.Name, Err: err.Error()})
}

// Errors returns the client errors between from and to.
func (l *Load) Errors(from, to time.Time) []ClientError {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ClientError
	for _, e := range l.errs {
		if !e.At.Before(from) && !e.At.After(to) {
			out = append(out, e)
		}
	}
	return out
}

// keyed sends a create with an Idempotency-Key, retried with the same key on
// the next instances until one answers 2xx (at most 5 tries, stopped by ctx).
func (l *Load) keyed(ctx context.Context, op, path string, body []byte, ct string, n int) (Answer, bool) {
	key := l.c.Unique(op)
	for try := range 5 {
		a := l.c.Pick(n + try)
		ans, err := l.c.Call(ctx, a, "POST", path, body, map[string]string{"Idempotency-Key": key, "Content-Type": ct})
		if err == nil && ans.Status < 300 {
			return ans, true
		}
		if ctx.Err() != nil {
			return ans, false
		}
		if err == nil {
			err = fmt.Errorf("%d %s", ans.Status, bytes.TrimSpace(ans.Raw))
		}
		l.fail(op, a, err)
		time.Sleep(100 * time.Millisecond)
	}
	return Answer{}, false
}

// writer creates items (every create keyed) and saves a watched item after
// every fourth create, round robin over the instances.
func (l *Load) writer(ctx context.Context) {
	for n := 0; ctx.Err() == nil; n++ {
		title := l.c.Unique("w")
		body := fmt.Appendf(nil, `{"fieldValues":{"title":%q}}`, title)
		l.attempts.Add(1)
		if ans, ok := l.keyed(ctx, "create", "/lists/"+l.f.ListID+"/items", body, "application/json", n); ok {
			var it struct{ ID int64 }
			if ans.Data(&it) == nil {
				l.mu.Lock()
				l.created[title] = it.ID
				l.mu.Unlock()
			}
		}
		if n%4 == 3 {
			l.save(ctx, n)
		}
	}
}

func (l *Load) save(ctx context.Context, n int) {
	a := l.c.Pick(n)
	v := l.c.Unique("p")
	id := l.f.Watched[n%len(l.f.Watched)]
	ans, err := l.c.Call(ctx, a, "PATCH", fmt.Sprintf("/lists/%s/items/%d", l.f.ListID, id), map[string]any{"fieldValues": map[string]any{"title": v}}, nil)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		l.fail("save", a, err)
	case ans.Status != 200:
		l.fail("save", a, fmt.Errorf("%d %s", ans.Status, ans.Raw))
	default:
		l.mu.Lock()
		l.saved = append(l.saved, Save{Value: v, Inst: a.Name, At: time.Now()})
		l.mu.Unlock()
	}
}

// uploader sends files of 1-64 KiB (every upload keyed).
func (l *Load) uploader(ctx context.Context) {
	for n := 0; ctx.Err() == nil; n++ {
		content := make([]byte, 1024+n%64*1024)
		_, _ = rand.Read(content)
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", l.c.Unique("u")+".bin")
		_, _ = fw.Write(content)
		_ = mw.Close()
		if ans, ok := l.keyed(ctx, "upload", "/libraries/"+l.f.LibID+"/files", buf.Bytes(), mw.FormDataContentType(), n); ok {
			var f struct{ ID int64 }
			if ans.Data(&f) == nil {
				l.mu.Lock()
				l.uploaded[f.ID] = sha256.Sum256(content)
				l.mu.Unlock()
			}
		}
	}
}

// WaitUpload returns an acknowledged upload, waiting for one at most within.
func (l *Load) WaitUpload(t testing.TB, within time.Duration) int64 {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		l.mu.Lock()
		for id := range l.uploaded {
			l.mu.Unlock()
			return id
		}
		l.mu.Unlock()
	}
	t.Fatalf("no upload acknowledged within %s", within)
	return 0
}
