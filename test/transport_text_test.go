package test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestTransportInvalidText: NUL and invalid UTF-8 (overlong forms, UTF-16
// surrogates, stray bytes) are refused with 400 in every text parameter and
// body field, on both databases, and nothing of them is stored (issue 9 item 9).
func TestTransportInvalidText(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"NUL":             "a\x00b",
		"overlong NUL":    "a\xc0\x80b",
		"overlong slash":  "a\xe0\x80\xafb",
		"surrogate":       "a\xed\xa0\x80b",
		"stray byte":      "a\xffb",
		"truncated UTF-8": "a\xe2\x82",
	}
	forEachBackendParallel(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "text")
		admin := s.Admin(t)
		good := f.create(t, admin, map[string]any{"title": "Привет 😀 ok"})
		itemPath := f.pathf("/items/%v", good["id"])

		for name, v := range bad {
			t.Run(name, func(t *testing.T) {
				// JSON bodies: the raw bytes, since encoding/json would replace them
				body := `{"fieldValues":{"title":"` + v + `"}}`
				admin.Do(t, "POST", f.path("/items"), body).Expect(t, 400, "VALIDATION_ERROR")
				admin.Do(t, "PATCH", itemPath, body).Expect(t, 400, "VALIDATION_ERROR")
				admin.Do(t, "POST", "/nodes", `{"slug":"n`+fmt.Sprint(len(v))+`","title":"`+v+`"}`).Expect(t, 400, "VALIDATION_ERROR")
				// filter values and plain query parameters
				filter := `{"logic":"and","conditions":[{"column":"title","operator":"eq","value":"` + v + `"}]}`
				admin.Do(t, "GET", f.path("/items?filter="+url.QueryEscape(filter)), nil).Expect(t, 400, "VALIDATION_ERROR")
				admin.Do(t, "GET", "/admin/users?q="+url.QueryEscape(v), nil).Expect(t, 400, "VALIDATION_ERROR")
				admin.Do(t, "GET", "/lists/"+url.PathEscape(v), nil).Expect(t, 400, "VALIDATION_ERROR")
				// multipart file names
				admin.Upload(t, "POST", itemPath+"/attachments", "file", v+".txt", []byte("x"), nil).Expect(t, 400, "VALIDATION_ERROR")
			})
		}
		t.Run("JSON escapes of NUL and lone surrogates", func(t *testing.T) {
			for _, esc := range []string{`\u0000`, `\ud800`, `\udfff`, `\ud83dx`} {
				admin.Do(t, "POST", f.path("/items"), `{"fieldValues":{"title":"a`+esc+`"}}`).Expect(t, 400, "VALIDATION_ERROR")
				filter := `{"logic":"and","conditions":[{"column":"title","operator":"contains","value":"` + esc + `"}]}`
				admin.Do(t, "GET", f.path("/items?filter="+url.QueryEscape(filter)), nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			// a surrogate pair is a valid character
			it := admin.Do(t, "POST", f.path("/items"), `{"fieldValues":{"title":"pair \ud83d\ude00"}}`).Expect(t, 201).Map(t)
			if f.value(it, "title") != "pair 😀" {
				t.Fatalf("title %q", f.value(it, "title"))
			}
		})
		t.Run("nothing invalid was stored", func(t *testing.T) {
			items, _ := f.list(t, admin, map[string]string{"limit": "500"})
			if len(items) != 2 {
				t.Fatalf("%d items, want the 2 valid ones", len(items))
			}
			for _, it := range items {
				title, _ := f.value(it, "title").(string)
				if strings.ContainsAny(title, "\x00\ufffd") {
					t.Fatalf("stored title %q", title)
				}
			}
			if got := admin.Do(t, "GET", itemPath, nil).Expect(t, 200).Map(t); f.value(got, "title") != "Привет 😀 ok" {
				t.Fatalf("item changed: %v", f.value(got, "title"))
			}
			// a valid non-ASCII filter still matches
			filter := `{"logic":"and","conditions":[{"column":"title","operator":"contains","value":"привет"}]}`
			if r := admin.Do(t, "GET", f.path("/items?filter="+url.QueryEscape(filter)), nil).Expect(t, 200); r.Meta["total"] != 1.0 {
				t.Fatalf("filter total %v", r.Meta["total"])
			}
		})
	})
}
