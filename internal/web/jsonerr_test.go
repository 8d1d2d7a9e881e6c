package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type jeBody struct {
	Count  *int     `json:"count,omitempty"`
	Ratio  *float64 `json:"ratio,omitempty"`
	Nested *struct {
		Tags []string `json:"tags,omitempty"`
		Deep *struct {
			Size *int64 `json:"size,omitempty"`
		} `json:"deep,omitempty"`
	} `json:"nested,omitempty"`
	Free map[string]any `json:"free,omitempty"`
}

var goInternals = []string{"Go value", "json:", "struct", "float64", "int64", "unmarshal", "reflect"}

func TestDescribeJSON(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"ratio": 1e999}`, "ratio: number 1e999 is out of range"},
		{`{"free": {"a": [1, -1e999]}}`, "free.a[1]: number -1e999 is out of range"},
		{`{"count": 1e30}`, "count: number 1e30 is out of range"},
		{`{"count": 1.5}`, "count: expected an integer, got 1.5"},
		{`{"count": "3"}`, "count: expected an integer, got a string"},
		{`{"nested": []}`, "nested: expected an object, got an array"},
		{`{"nested": {"tags": [1]}}`, "nested.tags: expected a string, got a number"},
		{`{"nested": {"deep": {"size": true}}}`, "nested.deep.size: expected an integer, got true or false"},
		{`{"nested": {"tags": [}}`, "malformed JSON at byte"},
		{`{"count": `, "malformed JSON, the document ends before it is complete"},
		{`{"count": 1} x`, "malformed JSON at byte"},
	}
	for _, c := range cases {
		var b jeBody
		err := DecodeJSON([]byte(c.body), &b)
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
			continue
		}
		for _, bad := range goInternals {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: %q names %q", c.body, err, bad)
			}
		}
	}
}

// TestBodyErrorsInCallerTerms sends bad bodies through the API: the answer
// is 400 VALIDATION_ERROR in the caller's terms.
func TestBodyErrorsInCallerTerms(t *testing.T) {
	mux := http.NewServeMux()
	api := NewAPI(mux, "test")
	Register(api, Op(http.MethodPut, "/je", "putJe", "put", Public), func(_ context.Context, in *struct{ Body jeBody }) (*Out[jeBody], error) {
		return OK(in.Body), nil
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, c := range []struct{ body, want string }{
		{`{"ratio": 1e999}`, "ratio: number 1e999 is out of range"},
		{`{"free": {"x": {"y": [0, 2e400]}}}`, "free.x.y[1]: number 2e400 is out of range"},
		{`{"count": 1e30}`, "out of range"},
		{`{"count": "x"}`, "count"},
		{`{"nested": {"deep": []}}`, "nested.deep"},
		{`{"nested": {"tags": [1, }}`, "malformed JSON"},
		{`[1, 2`, "malformed JSON"},
	} {
		st, m := send(t, srv, "PUT", "/api/v1/je", c.body)
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if st != 400 || e["code"] != "VALIDATION_ERROR" || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %v, want %q", c.body, st, m, c.want)
		}
		// details.field names the property when the message does
		if path, _, ok := strings.Cut(c.want, ": "); ok {
			if d, _ := e["details"].(map[string]any); d["field"] != path {
				t.Errorf("%s: details %v, want field %q", c.body, e["details"], path)
			}
		}
		for _, bad := range goInternals {
			if strings.Contains(strings.ToLower(msg), strings.ToLower(bad)) {
				t.Errorf("%s: %q names %q", c.body, msg, bad)
			}
		}
	}
}
