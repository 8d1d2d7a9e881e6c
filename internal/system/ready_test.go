package system

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReady(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("dial tcp 10.0.0.7:9000: connection refused") }
	hang := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	for _, c := range []struct {
		name    string
		checks  []Check
		status  int
		failing []string
	}{
		{"all answer", []Check{{"database", ok}, {"bus", ok}, {"blobs", ok}}, 200, nil},
		{"blob store down", []Check{{"database", ok}, {"bus", ok}, {"blobs", down}}, 503, []string{"blobs"}},
		{"two down", []Check{{"database", down}, {"bus", ok}, {"blobs", down}}, 503, []string{"database", "blobs"}},
		{"hanging bus", []Check{{"database", ok}, {"bus", hang}, {"blobs", ok}}, 503, []string{"bus"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), readyTimeout+2*time.Second)
			defer cancel()
			req := httptest.NewRequest(http.MethodGet, "/ready", nil).WithContext(ctx)
			w := httptest.NewRecorder()
			Ready(nil, c.checks...)(w, req)
			if w.Code != c.status {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			var env struct {
				Data  map[string]string
				Error struct {
					Code    string
					Details struct{ Failing []string }
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
				t.Fatal(err)
			}
			if c.status == 200 {
				if len(env.Data) != len(c.checks) || env.Data["blobs"] != "ok" {
					t.Fatalf("data %v", env.Data)
				}
				return
			}
			if env.Error.Code != "UNAVAILABLE" || strings.Join(env.Error.Details.Failing, ",") != strings.Join(c.failing, ",") {
				t.Fatalf("error %s", w.Body)
			}
			if strings.Contains(w.Body.String(), "10.0.0.7") {
				t.Fatalf("probe error leaked: %s", w.Body)
			}
		})
	}
}

// TestReadyFastAndCached: a dependency that never answers (and ignores its
// ctx) still gets a 503 naming it within a second, and probes of requests
// close together share one run.
func TestReadyFastAndCached(t *testing.T) {
	var calls atomic.Int32
	stuck := func(context.Context) error { calls.Add(1); time.Sleep(3 * time.Second); return nil }
	var dbCalls atomic.Int32
	db := func(context.Context) error { dbCalls.Add(1); return nil }
	h := Ready(nil, Check{"database", db}, Check{"blobs", stuck})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			w := httptest.NewRecorder()
			h(w, httptest.NewRequest(http.MethodGet, "/ready", nil))
			if took := time.Since(began); took > time.Second {
				t.Errorf("request %d took %s", i, took)
			}
			if w.Code != 503 || !strings.Contains(w.Body.String(), `"failing":["blobs"]`) {
				t.Errorf("request %d: %d %s", i, w.Code, w.Body)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 || dbCalls.Load() != 1 {
		t.Fatalf("probes run %d and %d times for three requests within the cache period", calls.Load(), dbCalls.Load())
	}
	time.Sleep(readyCache)
	w := httptest.NewRecorder()
	h(w, httptest.NewRequest(http.MethodGet, "/ready", nil))
	if dbCalls.Load() != 2 {
		t.Fatalf("the cached result outlived its period: %d database probes", dbCalls.Load())
	}
}
