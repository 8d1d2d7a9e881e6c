package kit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// DocumentPath is where the server serves its OpenAPI document. The kit
// checks every exchange of Client.Send against it.
const DocumentPath = "/api/v1/openapi.json"

// contract is the served OpenAPI document of one server, loaded on first use.
type contract struct {
	once   sync.Once
	router routers.Router
	doc    *openapi3.T
	err    error
}

func (c *contract) load(base string) (routers.Router, error) {
	c.once.Do(func() {
		resp, err := http.Get(base + DocumentPath)
		if err != nil {
			c.err = fmt.Errorf("fetch the OpenAPI document: %w", err)
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			c.err = fmt.Errorf("fetch the OpenAPI document: status %d, %v", resp.StatusCode, err)
			return
		}
		doc, err := parsedDocument(raw)
		if err != nil {
			c.err = err
			return
		}
		// a shallow copy: the parsed document is shared by every server
		// that serves the same bytes, only the servers differ
		served := *doc
		doc = &served
		// the router matches the request URL against servers: serve the
		// document's paths at this server's address
		doc.Servers = openapi3.Servers{{URL: base}}
		c.doc = doc
		c.router, c.err = gorillamux.NewRouter(doc)
	})
	return c.router, c.err
}

// parsed holds the documents parsed so far by the SHA-256 of their bytes:
// parsing and validating the document takes about a second, and every
// server of one test binary serves the same one.
var parsed = struct {
	sync.Mutex
	docs map[[32]byte]*openapi3.T
}{docs: map[[32]byte]*openapi3.T{}}

func parsedDocument(raw []byte) (*openapi3.T, error) {
	key := sha256.Sum256(raw)
	parsed.Lock()
	defer parsed.Unlock()
	if doc, ok := parsed.docs[key]; ok {
		return doc, nil
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	permitNullInEmptySchemas(doc)
	parsed.docs[key] = doc
	return doc, nil
}

// Exchange is one request with its answer, as Client.Send saw it.
type Exchange struct {
	Request *http.Request
	// Body is the request body as sent; nil when it could not be kept
	// (a streamed body): its validation is skipped then.
	Body   []byte
	Status int
	Header http.Header
	Raw    []byte
}

// CheckExchange validates an exchange against the server's OpenAPI document
// and reports a mismatch as a test error naming the operation, the status
// and what differs. Requests outside /api/v1, HEAD and OPTIONS are not
// checked; a request the document calls invalid must be refused (4xx).
func (s *Server) CheckExchange(t testing.TB, ex Exchange) {
	t.Helper()
	if err := s.checkExchange(ex); err != nil {
		t.Errorf("OpenAPI: %s %s answered %d: %v", ex.Request.Method, ex.Request.URL.Path, ex.Status, err)
	}
}

func (s *Server) checkExchange(ex Exchange) error {
	req := ex.Request
	if !strings.HasPrefix(req.URL.Path, "/api/v1/") || strings.HasPrefix(req.URL.Path, "/api/v1/openapi") ||
		strings.HasPrefix(req.URL.Path, "/api/v1/schemas/") || req.Method == http.MethodHead || req.Method == http.MethodOptions {
		return nil
	}
	router, err := s.contract.load(s.URL)
	if err != nil {
		return err
	}
	// the router matches the server address: send the URL as the client saw it
	r := req.Clone(context.Background())
	r.URL = &url.URL{Scheme: "http", Host: strings.TrimPrefix(s.URL, "http://"), Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	r.Host = r.URL.Host
	route, params, err := router.FindRoute(r)
	if err != nil {
		switch ex.Status {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnauthorized:
			return nil // an unknown route, refused (authentication comes first under /internal)
		}
		return fmt.Errorf("no operation of the document matches: %v", err)
	}
	op := route.Operation.OperationID
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			// the body is checked below, by validateRequestBody
			IncludeResponseStatus: true, ExcludeRequestBody: true,
			// OpenAPI 3.1 (JSON Schema) makes readOnly an annotation: the API
			// accepts the read-only properties of a resource's GET in its
			// writes and ignores them, as the document says.
			ExcludeReadOnlyValidations: true}}
	if ex.Body != nil {
		r.Body = io.NopCloser(bytes.NewReader(ex.Body))
		if len(ex.Body) > 0 && r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", "application/json") // the server reads such a body as JSON
		}
	}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	if reqErr == nil && ex.Body != nil && route.Operation.RequestBody != nil {
		reqErr = validateRequestBody(in, route.Operation.RequestBody.Value, ex.Body)
	}
	if reqErr != nil && ex.Status < 400 {
		return fmt.Errorf("%s: the server accepted a request the document calls invalid: %v", op, reqErr)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: ex.Status, Header: ex.Header,
		Body: io.NopCloser(bytes.NewReader(ex.Raw)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	ct, _, _ := mime.ParseMediaType(ex.Header.Get("Content-Type"))
	if ex.Header.Get("Content-Encoding") != "" || (ct != "" && !strings.HasSuffix(ct, "json")) {
		// binary or streamed content: its media type must be documented,
		// its bytes are not JSON to validate
		out.Options.ExcludeResponseBody = true
		if err := mediaDocumented(route, ex.Status, ex.Header.Get("Content-Type")); err != nil {
			return fmt.Errorf("%s: %v", op, err)
		}
	}
	if err := validateResponse(out, ex); err != nil {
		var re *openapi3filter.ResponseError
		if errors.As(err, &re) && re.Reason != "" && re.Err == nil {
			return fmt.Errorf("%s: %s", op, re.Reason)
		}
		return fmt.Errorf("%s: %v\nbody: %.600s", op, err, ex.Raw)
	}
	return nil
}

// Validating a body against an OpenAPI 3.1 schema compiles the schema each
// time (kin-openapi keeps no compiled JSON Schema): about half of the test
// process's CPU in the black-box suite. The outcome depends only on the
// operation, the media type, the documented headers and the bytes, so it is
// kept for exchanges seen before (many requests and error answers repeat).
var (
	requestBodies sync.Map // requestBodyKey -> error (nil when valid)
	responses     sync.Map // responseKey -> error (nil when valid)
)

type requestBodyKey struct {
	body        *openapi3.RequestBody
	contentType string
	sum         [32]byte
}

type responseKey struct {
	op          *openapi3.Operation
	status      int
	excludeBody bool
	headers     string
	sum         [32]byte
}

// validateRequestBody is openapi3filter.ValidateRequestBody, remembered.
func validateRequestBody(in *openapi3filter.RequestValidationInput, rb *openapi3.RequestBody, body []byte) error {
	key := requestBodyKey{body: rb, contentType: in.Request.Header.Get("Content-Type"), sum: sha256.Sum256(body)}
	if err, ok := requestBodies.Load(key); ok {
		return asError(err)
	}
	err := openapi3filter.ValidateRequestBody(context.Background(), in, rb)
	requestBodies.Store(key, err)
	return err
}

// validateResponse is openapi3filter.ValidateResponse, remembered. It reads
// the status, the body, the Content-Type and the headers documented for the
// status; the key holds exactly these.
func validateResponse(out *openapi3filter.ResponseValidationInput, ex Exchange) error {
	op := out.RequestValidationInput.Route.Operation
	var h strings.Builder
	for _, name := range []string{"Content-Type", "Content-Encoding", "Content-Disposition"} {
		fmt.Fprintf(&h, "%s=%q;", name, ex.Header.Values(name))
	}
	ref := op.Responses.Status(ex.Status)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref != nil && ref.Value != nil {
		names := make([]string, 0, len(ref.Value.Headers))
		for name := range ref.Value.Headers {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(&h, "%s=%q;", name, ex.Header.Values(name))
		}
	}
	key := responseKey{op: op, status: ex.Status, excludeBody: out.Options.ExcludeResponseBody, headers: h.String(), sum: sha256.Sum256(ex.Raw)}
	if err, ok := responses.Load(key); ok {
		return asError(err)
	}
	err := openapi3filter.ValidateResponse(context.Background(), out)
	responses.Store(key, err)
	return err
}

func asError(v any) error {
	if v == nil {
		return nil
	}
	err, _ := v.(error)
	return err
}

func mediaDocumented(route *routers.Route, status int, ct string) error {
	resp := route.Operation.Responses.Status(status)
	if resp == nil || resp.Value == nil {
		return nil // ValidateResponse reports the status
	}
	if len(resp.Value.Content) == 0 {
		if status == http.StatusNotModified || status == http.StatusNoContent {
			return nil
		}
		return fmt.Errorf("status %d documents no content, the answer is %q", status, ct)
	}
	if resp.Value.Content.Get(ct) == nil {
		return fmt.Errorf("status %d does not document the media type %q", status, ct)
	}
	return nil
}

// permitNullInEmptySchemas works around kin-openapi's fallback validator,
// which refuses null against the empty schema {} of an OpenAPI 3.1 document
// (JSON Schema accepts any value there): each empty schema lists every type.
func permitNullInEmptySchemas(doc *openapi3.T) {
	all := openapi3.Types{"null", "boolean", "object", "array", "number", "string", "integer"}
	seen := map[*openapi3.Schema]bool{}
	var visit func(*openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.IsEmpty() {
			s.Type = &all
			return
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		visit(s.AdditionalProperties.Schema)
		visit(s.Not)
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range list {
				visit(c)
			}
		}
	}
	for _, ref := range doc.Components.Schemas {
		visit(ref)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					visit(mt.Schema)
				}
			}
			for _, r := range op.Responses.Map() {
				if r.Value != nil {
					for _, mt := range r.Value.Content {
						visit(mt.Schema)
					}
				}
			}
		}
	}
}
