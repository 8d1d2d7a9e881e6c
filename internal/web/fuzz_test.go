package web

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

type fuzzIn struct {
	Name string `path:"name"`
	Q    string `query:"q"`
	Body struct {
		Title  string         `json:"title,omitempty"`
		Tags   []string       `json:"tags,omitempty"`
		Values map[string]any `json:"values,omitempty"`
	}
}

type fuzzOut struct{ Body Envelope[string] }

// fuzzServer is a real Huma API behind the edge middlewares; its one
// operation fails the test when any text it receives is not valid text.
func fuzzServer(t *testing.T, allowReplacement bool) http.Handler {
	mux := http.NewServeMux()
	api := NewAPI(mux, "fuzz")
	Register(api, Op(http.MethodPost, "/fuzz/{name}", "fuzz", "fuzz", Public), func(_ context.Context, in *fuzzIn) (*fuzzOut, error) {
		var bad []string
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if !utf8.ValidString(x) || strings.ContainsRune(x, 0) || (!allowReplacement && strings.ContainsRune(x, utf8.RuneError)) {
					bad = append(bad, x)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		walk(in.Name)
		walk(in.Q)
		walk(in.Body.Title)
		for _, tag := range in.Body.Tags {
			walk(tag)
		}
		walk(map[string]any(in.Body.Values))
		if len(bad) > 0 {
			t.Errorf("invalid text reached the handler: %q", bad)
		}
		return &fuzzOut{Body: Envelope[string]{Success: true, Data: "ok"}}, nil
	})
	return Chain(mux, RequestID, BodyDeadline(DefaultBodyLimits), Sanitize)
}

// FuzzRequestDecoding sends arbitrary path segments, query strings and JSON
// bodies through the edge middlewares and Huma's decoding: no answer may be a
// 5xx, and no text with NUL, invalid UTF-8 (overlong forms, surrogates) or a
// U+FFFD that a decoder substituted may reach a handler. The seeds run in
// every `go test`; `go test -fuzz FuzzRequestDecoding ./internal/web` explores.
func FuzzRequestDecoding(f *testing.F) {
	seeds := []struct{ name, query, body string }{
		{"plain", "q=hello", `{"title":"hello","tags":["a"],"values":{"k":"v"}}`},
		{"cyrillic", "q=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", `{"title":"привет 😀"}`},
		{"nul", "q=a%00b", `{"title":"a\u0000b"}`},
		{"raw-nul", "q=a", "{\"title\":\"a\x00b\"}"},
		{"overlong", "q=%C0%80", "{\"title\":\"\xc0\x80\"}"},
		{"overlong-slash", "q=%E0%80%AF", "{\"title\":\"\xe0\x80\xaf\"}"},
		{"surrogate-bytes", "q=%ED%A0%80", "{\"title\":\"\xed\xa0\x80\"}"},
		{"lone-high", "q=x", `{"title":"\ud800"}`},
		{"lone-low", "q=x", `{"tags":["\udc00"]}`},
		{"pair", "q=x", `{"title":"\ud83d\ude00"}`},
		{"key", "q=x", "{\"values\":{\"\xff\":1}}"},
		{"nested", "q=x", `{"values":{"a":[{"b":"\u0000"}]}}`},
		{"stray", "q=%FF", "{\"title\":\"\xff\"}"},
		{"truncated", "q=%E2%82", "{\"title\":\"\xe2\x82\"}"},
		{"bad-escape", "q=%zz", `{"title":"\uZZZZ"}`},
		{"filter", `filter={"logic":"and","conditions":[{"column":"t","operator":"eq","value":"\u0000"}]}`, `{}`},
		{"not-json", "q=", `{`},
		{"empty", "", ``},
		{"\xff\xfe", "q=x", `{}`},
		{"a%00", "q=x", `{}`},
	}
	for _, s := range seeds {
		f.Add(s.name, s.query, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, name, query string, body []byte) {
		// U+FFFD may arrive when the request itself carries it
		unq, _ := url.QueryUnescape(query)
		raw := strings.ToLower(name + unq + string(body))
		h := fuzzServer(t, strings.Contains(raw, "\ufffd") || strings.ContainsRune(raw, utf8.RuneError))
		u := &url.URL{Path: "/api/v1/fuzz/" + name, RawQuery: query}
		if strings.Contains(name, "/") || name == "" {
			u.Path = "/api/v1/fuzz/x"
		}
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.URL = u
		req.RequestURI = u.RequestURI()
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for name %q query %q body %q: %s", rec.Code, name, query, body, rec.Body.String())
		}
	})
}
