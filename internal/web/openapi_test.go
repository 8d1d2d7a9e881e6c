package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

type docThing struct {
	ID      string            `json:"id"`
	Parent  *docThing         `json:"parent"`
	Level   *string           `json:"level" enum:"view,edit"`
	Changes map[string]string `json:"changes"`
	Note    *string           `json:"note,omitempty"`
}

type docItem struct {
	ID string `json:"id"`
}

type docCreateIn struct {
	ID   string `path:"id"`
	Body struct {
		Name string `json:"name"`
	}
}

// documentFor registers a few operations like the features do and returns
// the served 3.1 and 3.0 documents.
func documentFor(t *testing.T) (map[string]any, map[string]any) {
	t.Helper()
	mux := http.NewServeMux()
	api := NewAPI(mux, "9.9.9-test")
	Register(api, Answers(Op(http.MethodPost, "/things/{id}", "createThing", "Create", User, "lists"), http.StatusCreated),
		func(context.Context, *docCreateIn) (*Out[docThing], error) { return Created(docThing{}), nil })
	Register(api, Op(http.MethodPost, "/auth/login", "login", "Sign in", Public, "auth"),
		func(context.Context, *struct{ Body struct{ Login string } }) (*Out[any], error) { return Empty(), nil })
	Register(api, Op(http.MethodGet, "/things", "listThings", "List", User, "lists"),
		func(context.Context, *PageQuery) (*PagedOut[[]docThing, PageMeta], error) {
			return Paged([]docThing{}, PageMeta{}), nil
		})
	Register(api, Op(http.MethodGet, "/things/{id}", "getThing", "Get", User, "lists"),
		func(context.Context, *struct {
			ID string `path:"id"`
		}) (*Out[*docItem], error) {
			return OK(&docItem{}), nil
		})
	Register(api, Op(http.MethodGet, "/queue", "queued", "Queued", User, "lists"),
		func(context.Context, *struct{}) (*MaybeOut[*docItem], error) { return ReplyMaybe[*docItem](nil, nil) })
	Register(api, Op(http.MethodPost, "/admin/users/{id}/reset-password", "resetPassword", "Reset", Admin, "admin-users"),
		func(context.Context, *struct {
			ID string `path:"id"`
		}) (*Out[any], error) {
			return Empty(), nil
		})
	o := Op(http.MethodGet, "/things/{id}/files/{fileRef}/download", "download", "Download", User, "lists")
	o.Responses = map[string]*huma.Response{"200": FileAnswer("bytes", "*/*")}
	api.OpenAPI().AddOperation(&o)
	get := func(path string) map[string]any {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	return get(Prefix + "/openapi.json"), get(Prefix + "/openapi-3.0.json")
}

func dig(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

func responseKeys(doc map[string]any, path, method string) []string {
	var keys []string
	for k := range dig(doc, "paths", path, method, "responses").(map[string]any) {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestDocumentStatusesAndErrors(t *testing.T) {
	doc, _ := documentFor(t)
	got := responseKeys(doc, "/api/v1/things/{id}", "post")
	want := []string{"201", "400", "401", "403", "404", "408", "409", "413", "423", "500", "503"}
	if !slices.Equal(got, want) {
		t.Errorf("createThing answers %v, want %v", got, want)
	}
	if ref := dig(doc, "paths", "/api/v1/things/{id}", "post", "responses", "404", "content", "application/json", "schema", "$ref"); ref != "#/components/schemas/APIError" {
		t.Errorf("404 schema %v, want the error envelope", ref)
	}
	// the licence gate lets the recovery writes through
	if reset := responseKeys(doc, "/api/v1/admin/users/{id}/reset-password", "post"); slices.Contains(reset, "423") {
		t.Errorf("reset-password (a recovery write) answers %v: want no 423", reset)
	}
	login := responseKeys(doc, "/api/v1/auth/login", "post")
	if slices.Contains(login, "401") || !slices.Contains(login, "429") || slices.Contains(login, "423") {
		t.Errorf("login answers %v: want 429 and no 401 or 423", login)
	}
	if sec, ok := dig(doc, "paths", "/api/v1/auth/login", "post", "security").([]any); !ok || len(sec) != 0 {
		t.Errorf("login security %v, want []", dig(doc, "paths", "/api/v1/auth/login", "post", "security"))
	}
	dl := responseKeys(doc, "/api/v1/things/{id}/files/{fileRef}/download", "get")
	for _, st := range []string{"200", "206", "304", "416"} {
		if !slices.Contains(dl, st) {
			t.Errorf("download answers %v, lacks %s", dl, st)
		}
	}
	params, _ := dig(doc, "paths", "/api/v1/things/{id}/files/{fileRef}/download", "get", "parameters").([]any)
	if len(params) != 2 {
		t.Errorf("download parameters %v, want id and fileRef", params)
	}
	if v := dig(doc, "info", "version"); v != "9.9.9-test" {
		t.Errorf("info.version %v", v)
	}
	if tags, _ := doc["tags"].([]any); len(tags) == 0 || dig(tags[0], "name") != "auth" {
		t.Errorf("tags start with %v, want auth", tags)
	}
	for name := range dig(doc, "components", "schemas").(map[string]any) {
		if strings.ContainsAny(name, " {}[]*.") {
			t.Errorf("schema name %q", name)
		}
	}
}

func TestDocumentNullableAnswers(t *testing.T) {
	doc, doc30 := documentFor(t)
	props := dig(doc, "components", "schemas", "DocThing", "properties").(map[string]any)
	if typ, _ := dig(props, "level", "type").([]any); len(typ) != 2 || typ[1] != "null" {
		t.Errorf("level type %v, want [string null]", dig(props, "level", "type"))
	}
	if enum, _ := dig(props, "level", "enum").([]any); !slices.Contains(enum, nil) {
		t.Errorf("level enum %v lacks null", enum)
	}
	if typ, _ := dig(props, "changes", "type").([]any); len(typ) != 2 {
		t.Errorf("changes type %v, want [object null]", dig(props, "changes", "type"))
	}
	if any, _ := dig(props, "parent", "anyOf").([]any); len(any) != 2 {
		t.Errorf("parent %v, want anyOf [ref, null]", props["parent"])
	}
	if typ := dig(props, "note", "type"); typ != "string" {
		t.Errorf("note (omitempty) type %v, want string", typ)
	}
	p30 := dig(doc30, "components", "schemas", "DocThing", "properties", "parent").(map[string]any)
	if p30["nullable"] != true || p30["allOf"] == nil {
		t.Errorf("3.0 parent %v, want allOf [ref] nullable", p30)
	}
}

// TestDocumentEnvelopes: a listing's meta has a schema of its own, a
// pointer data is nullable only in a MaybeEnvelope, and answers without
// meta declare none.
func TestDocumentEnvelopes(t *testing.T) {
	doc, _ := documentFor(t)
	schemas := dig(doc, "components", "schemas").(map[string]any)
	ref := dig(doc, "paths", "/api/v1/things", "get", "responses", "200", "content", "application/json", "schema", "$ref").(string)
	paged := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	if dig(paged, "properties", "meta", "$ref") != "#/components/schemas/PageMeta" {
		t.Errorf("listing meta %v, want PageMeta", dig(paged, "properties", "meta"))
	}
	if req, _ := dig(paged, "required").([]any); !slices.Contains(req, "meta") {
		t.Errorf("listing meta not required: %v", req)
	}
	for _, p := range []string{"page", "limit", "total", "totalPages"} {
		if dig(schemas, "PageMeta", "properties", p, "type") != "integer" {
			t.Errorf("PageMeta.%s %v", p, dig(schemas, "PageMeta", "properties", p))
		}
	}
	if d := dig(schemas, "EnvelopeDocItem", "properties", "data"); dig(d, "$ref") != "#/components/schemas/DocItem" {
		t.Errorf("Envelope data %v, want the plain ref (never null)", d)
	}
	if dig(schemas, "EnvelopeDocThing", "properties", "meta") != nil {
		t.Errorf("an envelope without meta declares meta")
	}
	if alts, _ := dig(schemas, "MaybeEnvelopeDocItem", "properties", "data", "anyOf").([]any); len(alts) != 2 {
		t.Errorf("MaybeEnvelope data %v, want anyOf [ref, null]", dig(schemas, "MaybeEnvelopeDocItem", "properties", "data"))
	}
}

func TestAPIIndex(t *testing.T) {
	mux := http.NewServeMux()
	NewAPI(mux, "9.9.9-test")
	for _, path := range []string{"/api", "/api/", "/api/v1", "/api/v1/"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var env struct {
			Success bool
			Data    APIIndex
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if !env.Success || env.Data.OpenAPI != "/api/v1/openapi.json" || env.Data.Reference != "/api/docs" || env.Data.Version != "9.9.9-test" {
			t.Errorf("%s: %+v", path, env)
		}
	}
}
