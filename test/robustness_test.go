package test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"coreportal/test/kit"
)

// TestNoServerErrorsOnBadInput walks the OpenAPI document and sends every
// operation malformed path parameters, query parameters and bodies, as an
// administrator (who passes every permission check and so reaches the
// deepest code) and anonymously. No answer may be a 5xx, and anonymous
// callers get 401 everywhere but the public operations.
func TestNoServerErrorsOnBadInput(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		// the document itself, which the kit does not check against itself
		resp, err := http.Get(s.URL + "/api/v1/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string                `json:"operationId"`
				Security    []map[string][]string `json:"security"`
			} `json:"paths"`
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		param := regexp.MustCompile(`\{[^}]+\}`)
		pathValues := []string{"urn:uuid:00000000-0000-0000-0000-000000000000", "{00000000-0000-0000-0000-000000000000}", "not-a-uuid", "00000000-0000-0000-0000-000000000000", "99999999999999999999", "-1", "%00", "a%2Fb"}
		bodies := []any{`{`, `[]`, `"text"`, `{"unknownField":1}`, `{}`, `null`, `{"id":{"$gt":1},"name":["x"]}`,
			`{"name":"a\u0000b","login":"a\u0000","title":"x\u0000","slug":"a","password":"p\u0000assword"}`,
			`{"nodeId":"urn:uuid:00000000-0000-0000-0000-000000000000","userId":"{00000000-0000-0000-0000-000000000000}","principalId":"00000000000000000000000000000000"}`,
			`{"sortOrder":3000000000,"page":9223372036854775807,"limit":-1}`}
		queries := []string{"", "?page=-1&limit=abc", "?page=99999999999999999999", "?page=9223372036854775807&limit=2", "?nodeId=urn:uuid:00000000-0000-0000-0000-000000000000", "?q=%27%3B--&sort=%7B&filter=%5B"}
		// the probes are independent: a few at a time, as clients would
		var probes []func()
		ops := 0
		for path, methods := range doc.Paths {
			for method, op := range methods {
				method = strings.ToUpper(method)
				ops++
				for _, pv := range pathValues {
					p := param.ReplaceAllString(strings.TrimPrefix(path, "/api/v1"), pv)
					for _, q := range queries {
						var bs []any
						if method == "GET" || method == "DELETE" {
							bs = []any{nil}
						} else {
							bs = bodies
						}
						for _, b := range bs {
							probes = append(probes, func() {
								r := adm.Do(t, method, p+q, b)
								if r.Status >= 500 {
									t.Errorf("%s %s%s body %v: %d %s", method, p, q, b, r.Status, r.Raw)
								}
							})
						}
					}
					// NUL is refused at the edge, before authentication (400 reveals nothing).
					if len(op.Security) > 0 && pv != "%00" {
						probes = append(probes, func() {
							if r := s.Anon().Do(t, method, p, nil); r.Status != 401 {
								t.Errorf("anonymous %s %s (%s): %d, want 401", method, p, op.OperationID, r.Status)
							}
						})
					}
				}
			}
		}
		next := make(chan func())
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for probe := range next {
					probe()
				}
			}()
		}
		for _, probe := range probes {
			next <- probe
		}
		close(next)
		wg.Wait()
		if ops < 30 {
			t.Fatalf("only %d operations in the OpenAPI document", ops)
		}
		t.Logf("%d operations probed", ops)
	})
}
