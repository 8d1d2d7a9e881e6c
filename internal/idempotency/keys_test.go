package idempotency

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// server is a creating endpoint behind the middleware: every run counts,
// sleeps delay and answers 201 with the count and the body it read.
type server struct {
	*httptest.Server
	keys  *Keys
	runs  atomic.Int32
	user  string
	delay time.Duration
	hook  func(ctx context.Context) // called inside the handler
}

func newServer(t *testing.T, db *store.DB) *server {
	s := &server{keys: New(db), user: uuid.NewString()}
	create := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n := s.runs.Add(1)
		if s.hook != nil {
			s.hook(r.Context())
		}
		time.Sleep(s.delay)
		if strings.Contains(string(body), "bad") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"bad"}`))
			return
		}
		if strings.Contains(string(body), "boom") {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Location", "/things/"+string(rune('0'+n)))
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"n": n, "body": string(body)})
	})
	signedIn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u := r.Header.Get("X-User")
			if u == "" {
				u = s.user
			}
			next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{UserID: u})))
		})
	}
	s.Server = httptest.NewServer(signedIn(s.keys.Middleware(create)))
	t.Cleanup(s.Close)
	return s
}

type reply struct {
	status   int
	body     string
	replayed bool
	location string
}

func (s *server) post(t *testing.T, path, key, body string, hdr ...string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set(Header, key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b), resp.Header.Get("Idempotent-Replayed") == "true", resp.Header.Get("Location")}
}

func TestReplayAndConflicts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s := newServer(t, db)
		first := s.post(t, "/things", "k1", `{"title":"a"}`)
		again := s.post(t, "/things", "k1", `{"title":"a"}`)
		if first.status != 201 || again.status != 201 || again.body != first.body || !again.replayed || again.location != first.location || s.runs.Load() != 1 {
			t.Fatalf("first %+v, retry %+v, runs %d", first, again, s.runs.Load())
		}
		if r := s.post(t, "/things", "k1", `{"title":"b"}`); r.status != 409 || s.runs.Load() != 1 {
			t.Fatalf("same key, other body: %+v", r)
		}
		if r := s.post(t, "/others", "k1", `{"title":"a"}`); r.status != 409 {
			t.Fatalf("same key, other path: %+v", r)
		}
		// keys are per user; requests without a key are not affected
		if r := s.post(t, "/things", "k1", `{"title":"a"}`, "X-User", uuid.NewString()); r.status != 201 || r.replayed {
			t.Fatalf("another user's key: %+v", r)
		}
		s.post(t, "/things", "", `{"title":"a"}`)
		s.post(t, "/things", "", `{"title":"a"}`)
		if s.runs.Load() != 4 {
			t.Fatalf("runs %d, want 4", s.runs.Load())
		}
		// client errors are kept, server errors are not
		s.post(t, "/things", "k2", `bad`)
		if r := s.post(t, "/things", "k2", `bad`); r.status != 400 || !r.replayed || s.runs.Load() != 5 {
			t.Fatalf("kept 400: %+v", r)
		}
		s.post(t, "/things", "k3", `boom`)
		s.post(t, "/things", "k3", `boom`)
		if s.runs.Load() != 7 {
			t.Fatalf("a 500 was replayed: runs %d", s.runs.Load())
		}
		if r := s.post(t, "/things", "bad key", `x`); r.status != 400 || !strings.Contains(r.body, Header) {
			t.Fatalf("invalid key: %+v", r)
		}
	})
}

func TestConcurrentDuplicatesCreateOnce(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s := newServer(t, db)
		s.delay = 300 * time.Millisecond
		var wg sync.WaitGroup
		replies := make([]reply, 6)
		for i := range replies {
			wg.Add(1)
			go func() { defer wg.Done(); replies[i] = s.post(t, "/things", "same", `{"x":1}`) }()
		}
		wg.Wait()
		for i, r := range replies {
			if r.status != 201 || r.body != replies[0].body {
				t.Fatalf("reply %d: %+v (first %+v)", i, r, replies[0])
			}
		}
		if s.runs.Load() != 1 {
			t.Fatalf("%d creates for one key", s.runs.Load())
		}
	})
}

// TestDeadHolder: a key held by a request whose server died is taken over
// after its lease when nothing was saved, and answers 409 when the first
// request had saved its change (no second create).
func TestDeadHolder(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := newServer(t, db)
		req := request(httptest.NewRequest(http.MethodPost, "/things", nil))
		past := time.Now().UTC().Add(-time.Second)
		for _, k := range []string{"unsaved", "saved"} {
			if ok, _, err := s.keys.st.reserve(ctx, s.user, k, req, past.Add(-time.Minute), past); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		if err := s.keys.st.markSaved(ctx, s.user, "saved"); err != nil {
			t.Fatal(err)
		}
		if r := s.post(t, "/things", "unsaved", `{}`); r.status != 201 || r.replayed || s.runs.Load() != 1 {
			t.Fatalf("unsaved dead key: %+v", r)
		}
		if r := s.post(t, "/things", "saved", `{}`); r.status != 409 || s.runs.Load() != 1 {
			t.Fatalf("saved dead key: %+v", r)
		}
	})
}

// TestCommitHookMarksSaved: a transaction of the request marks its key
// saved in the same commit.
func TestCommitHookMarksSaved(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s := newServer(t, db)
		var saved bool
		s.hook = func(ctx context.Context) {
			_ = db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				_, err := db.W(ctx).ExecContext(ctx, `UPDATE idempotency_keys SET content_type = 'touched' WHERE idem_key = 'other'`)
				return err
			})
			rec, err := s.keys.st.get(context.Background(), s.user, "hooked")
			saved = err == nil && rec.Saved
		}
		s.post(t, "/things", "hooked", `{}`)
		if !saved {
			t.Fatal("the request's transaction did not mark its key saved")
		}
	})
}

func TestPurge(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		s := newServer(t, db)
		s.post(t, "/things", "old", `{}`)
		s.keys.now = func() time.Time { return time.Now().Add(25 * time.Hour) }
		// an expired key is not replayed even before the purge runs
		if r := s.post(t, "/things", "old", `{}`); r.replayed || s.runs.Load() != 2 {
			t.Fatalf("a key past its retention was replayed: %+v", r)
		}
		s.keys.now = func() time.Time { return time.Now().Add(50 * time.Hour) }
		n, err := s.keys.st.purge(context.Background(), s.keys.now().UTC().Add(-s.keys.Retention))
		if err != nil || n != 1 {
			t.Fatalf("purged %d, %v", n, err)
		}
	})
}
