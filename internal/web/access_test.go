package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAccessLogLine: the access line carries the client given by the
// client function, the user noted by an inner middleware, the route template
// (not the raw path), the status, the body bytes and the duration.
func TestAccessLogLine(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer slog.SetDefault(prev)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/lists/{listId}/items", func(w http.ResponseWriter, r *http.Request) {
		NoteUser(r.Context(), "user-7")
		_, _ = w.Write([]byte("hello"))
	})
	h := Chain(CaptureRoute(mux), ObserveRoutes(), AccessLog(true, nil, func(*http.Request) string { return "203.0.113.9" }))

	for _, c := range []struct {
		path, route, user, client string
		status, bytes             float64
	}{
		{"/api/v1/lists/abc/items", "/api/v1/lists/{listId}/items", "user-7", "203.0.113.9", 200, 5},
		{"/nowhere", "unmatched", "", "203.0.113.9", 404, 19},
	} {
		buf.Reset()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v %s", c.path, err, buf.String())
		}
		if line["msg"] != "http" || line["route"] != c.route || line["path"] != c.path || line["user"] != c.user || line["client"] != c.client ||
			line["status"] != c.status || line["bytes"] != c.bytes || line["ms"] == nil || line["method"] != "GET" {
			t.Fatalf("%s: line %v", c.path, line)
		}
	}

	// without a client function the peer address is logged
	buf.Reset()
	plain := Chain(CaptureRoute(mux), ObserveRoutes(), AccessLog(true, nil, nil))
	req := httptest.NewRequest("GET", "/api/v1/lists/x/items", nil)
	req.RemoteAddr = "192.0.2.1:5555"
	plain.ServeHTTP(httptest.NewRecorder(), req)
	var line map[string]any
	_ = json.Unmarshal(buf.Bytes(), &line)
	if line["client"] != "192.0.2.1" {
		t.Fatalf("peer client %v", line)
	}
}
