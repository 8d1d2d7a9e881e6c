package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBadJSONText(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`{"a":"b"}`, false},
		{`{"a":"\u0000"}`, true},
		{`{"a":"x\\u0000"}`, false}, // escaped backslash, then text u0000
		{`{"a":"x\\\u0000"}`, true}, // escaped backslash, then a NUL escape
		{"{\"a\":\"\x00\"}", true},  // raw NUL byte
		{`{"a":"\u00001"}`, true},
		{`{"a":"\u0001"}`, false},
		{"{\"a\":\"\xc0\x80\"}", true},     // overlong NUL
		{"{\"a\":\"\xe0\x80\xaf\"}", true}, // overlong slash
		{"{\"a\":\"\xed\xa0\x80\"}", true}, // surrogate in UTF-8
		{"{\"a\":\"\xff\"}", true},         // invalid byte
		{"{\"a\":\"\xe2\x82\"}", true},     // truncated sequence
		{`{"a":"\ud800"}`, true},           // lone high surrogate
		{`{"a":"\udc00x"}`, true},          // lone low surrogate
		{`{"a":"\ud83d\ude00"}`, false},    // valid pair (emoji)
		{`{"a":"\ud83d\u0041"}`, true},     // high surrogate then not low
		{`{"a":"h\u00e9llo ü €"}`, false},  // valid text
		{`{"a":"\\ud800"}`, false},         // escaped backslash, then text
	}
	for _, c := range cases {
		if got := badJSONText([]byte(c.in)) != ""; got != c.want {
			t.Errorf("badJSONText(%q) = %v", c.in, got)
		}
	}
}

func TestSanitize(t *testing.T) {
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	var seenPath, seenQuery, seenBody string
	h := Sanitize(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seenPath, seenQuery = r.URL.Path, r.URL.RawQuery
		b, _ := io.ReadAll(r.Body)
		seenBody = string(b)
	}))
	cases := []struct {
		name, method, target, body, ct string
		status                         int
		path, query                    string
	}{
		{"urn path", "GET", "/api/v1/groups/urn:uuid:" + id, "", "", 200, "/api/v1/groups/" + id, ""},
		{"upper path", "GET", "/api/v1/groups/" + strings.ToUpper(id), "", "", 200, "/api/v1/groups/" + id, ""},
		{"query ids", "GET", "/api/v1/x?listId=%7B" + id + "%7D&q=%7B" + id + "%7D", "", "", 200, "/api/v1/x", "listId=" + id + "&q=%7B" + id + "%7D"},
		{"NUL in query", "GET", "/api/v1/x?q=a%00b", "", "", 400, "", ""},
		{"NUL in body", "POST", "/api/v1/x", `{"name":"a\u0000"}`, "application/json", 400, "", ""},
		{"NUL in multipart passes", "POST", "/api/v1/x", "a\x00b", "multipart/form-data; boundary=x", 200, "/api/v1/x", ""},
		{"clean body", "POST", "/api/v1/x", `{"name":"a"}`, "application/json", 200, "/api/v1/x", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seenPath, seenQuery, seenBody = "", "", ""
			req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
			if c.ct != "" {
				req.Header.Set("Content-Type", c.ct)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if c.status == 200 {
				if seenPath != c.path || (c.query != "" && seenQuery != c.query) {
					t.Fatalf("path %q query %q", seenPath, seenQuery)
				}
				if seenBody != c.body {
					t.Fatalf("body changed: %q", seenBody)
				}
			}
		})
	}
}
