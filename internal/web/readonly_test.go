package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type roResource struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	IsAdmin  bool     `json:"is_admin"`
	Counters roCounts `json:"counters"`
}

type roCounts struct {
	Seen int `json:"seen"`
}

type roPatch struct {
	ReadOnlyFrom[roResource]
	Name    *string `json:"name,omitempty"`
	IsAdmin *bool   `json:"isAdmin,omitempty"`
}

// roServer serves PATCH /things answering the body the handler decoded.
func roServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	api := NewAPI(mux, "test")
	Register(api, Op(http.MethodPatch, "/things", "patchThing", "patch", Public), func(_ context.Context, in *struct{ Body roPatch }) (*Out[roPatch], error) {
		return OK(in.Body), nil
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, srv *httptest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func TestReadOnlyFrom(t *testing.T) {
	srv := roServer(t)
	// the whole GET record echoed back: accepted; the read-only values never reach the handler
	st, m := send(t, srv, "PATCH", "/api/v1/things", `{"id":"x","name":"n","is_admin":true,"counters":{"seen":3}}`)
	if st != 200 {
		t.Fatalf("echo: %d %v", st, m)
	}
	if d := m["data"].(map[string]any); d["name"] != "n" || d["isAdmin"] != nil {
		t.Fatalf("decoded %v", d)
	}
	for _, c := range []struct{ body, field string }{
		{`{"name":"n","bogus":1}`, "bogus"},            // unknown stays refused
		{`{"counters":"many"}`, "counters"},            // a read-only value must have the GET's type
		{`{"counters":{"seen":1,"other":2}}`, "other"}, // and its shape
	} {
		st, m := send(t, srv, "PATCH", "/api/v1/things", c.body)
		if st != 400 || !strings.Contains(m["error"].(map[string]any)["message"].(string), c.field) {
			t.Fatalf("%s: %d %v", c.body, st, m)
		}
	}
	// the schema documents the added properties as readOnly, the body's own ones not
	st, m = send(t, srv, "GET", "/api/v1/openapi.json", "")
	if st != 200 {
		t.Fatalf("openapi %d", st)
	}
	props := m["components"].(map[string]any)["schemas"].(map[string]any)["RoPatch"].(map[string]any)["properties"].(map[string]any)
	for name, want := range map[string]bool{"id": true, "is_admin": true, "counters": true, "name": false, "isAdmin": false} {
		p, ok := props[name].(map[string]any)
		if !ok || (p["readOnly"] == true) != want {
			t.Errorf("property %s: %v (readOnly want %v)", name, p, want)
		}
	}
}
