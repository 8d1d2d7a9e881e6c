package system

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
