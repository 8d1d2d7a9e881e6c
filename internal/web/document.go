package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/yaml"
)

// documents serves the OpenAPI document (3.1) and its 3.0 rendering for
// tools that read only 3.0, each as JSON and YAML, built once on first
// request (every operation is registered before the server listens).
type documents struct {
	oapi   *huma.OpenAPI
	once   sync.Once
	bodies map[string][]byte
	err    error
}

func (d *documents) build() {
	markNullable(d.oapi)
	v31, err := json.Marshal(d.oapi)
	if err != nil {
		d.err = fmt.Errorf("marshal the OpenAPI document: %w", err)
		return
	}
	v30, err := d.oapi.Downgrade()
	if err != nil {
		d.err = fmt.Errorf("downgrade the OpenAPI document: %w", err)
		return
	}
	if v30, err = clean30(v30); err != nil {
		d.err = err
		return
	}
	d.bodies = map[string][]byte{".json": v31, "-3.0.json": v30}
	for _, k := range []string{".json", "-3.0.json"} {
		var buf bytes.Buffer
		if err := yaml.Convert(&buf, bytes.NewReader(d.bodies[k])); err != nil {
			d.err = fmt.Errorf("convert the OpenAPI document to YAML: %w", err)
			return
		}
		d.bodies[k[:len(k)-len("json")]+"yaml"] = buf.Bytes()
	}
}

// clean30 removes the 3.1 keywords that the downgrade keeps
// (contentMediaType of binary strings).
func clean30(doc []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("read the 3.0 document: %w", err)
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			if _, ok := t["contentMediaType"].(string); ok && t["type"] == "string" {
				delete(t, "contentMediaType")
			}
			nullRefTo30(t)
			if info, ok := t["license"].(map[string]any); ok {
				delete(info, "identifier") // 3.1 only
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return json.Marshal(v)
}

// nullRefTo30 rewrites anyOf [X, {type: null}] (3.1) as X with
// nullable: true (3.0), a $ref wrapped in allOf.
func nullRefTo30(s map[string]any) {
	alts, ok := s["anyOf"].([]any)
	if !ok || len(alts) != 2 {
		return
	}
	n, _ := alts[1].(map[string]any)
	x, _ := alts[0].(map[string]any)
	if n == nil || x == nil || n["type"] != "null" {
		return
	}
	delete(s, "anyOf")
	if _, ref := x["$ref"]; ref {
		s["allOf"] = []any{x}
	} else {
		for k, v := range x {
			s[k] = v
		}
	}
	s["nullable"] = true
}

func (d *documents) serve(suffix, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d.once.Do(d.build)
		if d.err != nil {
			WriteError(w, r, d.err)
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(d.bodies[suffix])
	}
}

// serveDocuments mounts the document under /api/v1/openapi{.json,.yaml,-3.0.json,-3.0.yaml}.
func serveDocuments(mux *http.ServeMux, oapi *huma.OpenAPI) {
	d := &documents{oapi: oapi}
	for suffix, ct := range map[string]string{".json": "application/openapi+json", "-3.0.json": "application/openapi+json",
		".yaml": "application/openapi+yaml", "-3.0.yaml": "application/openapi+yaml"} {
		mux.HandleFunc("GET "+Prefix+"/openapi"+suffix, d.serve(suffix, ct))
	}
}

// APIIndex is the answer of GET /api and GET /api/v1: where the document
// and the reference are.
type APIIndex struct {
	Title     string `json:"title"`
	Version   string `json:"version"`
	OpenAPI   string `json:"openapi" doc:"the OpenAPI 3.1 document"`
	OpenAPI30 string `json:"openapi30" doc:"the same document rendered as OpenAPI 3.0"`
	Reference string `json:"reference" doc:"the reference page rendering the document"`
	API       string `json:"api" doc:"the prefix of every operation"`
}

// serveIndex answers GET /api and GET /api/v1 with the APIIndex.
func serveIndex(mux *http.ServeMux, version string) {
	idx := Envelope[APIIndex]{Success: true, Data: APIIndex{Title: "Core Portal API", Version: version,
		OpenAPI: Prefix + "/openapi.json", OpenAPI30: Prefix + "/openapi-3.0.json", Reference: "/api/docs", API: Prefix}}
	h := func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, idx) }
	for _, p := range []string{"GET /api", "GET /api/{$}", "GET " + Prefix, "GET " + Prefix + "/{$}"} {
		mux.HandleFunc(p, h)
	}
}
