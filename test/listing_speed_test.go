package test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"coreportal/test/kit"
)

// TestListingSpeed covers issue #16 on one server per backend: the item
// number in sort/orderBy/filter, compressed JSON answers and ETag/304.
func TestListingSpeed(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "speed")
		a := f.admin
		f.addField(t, "n", "number", nil)
		for i := 1; i <= 30; i++ {
			f.create(t, a, map[string]any{"title": fmt.Sprintf("Item %02d %s", i, strings.Repeat("x", 40)), "n": 100 - i})
		}
		raw := &kit.Client{S: s, Token: a.Token, HTTP: &http.Client{Transport: &http.Transport{DisableCompression: true}}}
		path := f.path("/items?limit=30&sort=n:asc")

		t.Run("id in sort orderBy filter", func(t *testing.T) {
			ids := func(items []map[string]any) []int {
				out := make([]int, len(items))
				for i, it := range items {
					out[i] = int(it["id"].(float64))
				}
				return out
			}
			items, meta := f.list(t, a, map[string]string{"sort": "id:desc", "limit": "5"})
			if got := ids(items); fmt.Sprint(got) != "[30 29 28 27 26]" || meta["total"].(float64) != 30 {
				t.Fatalf("sort=id:desc: %v total %v", got, meta["total"])
			}
			items, _ = f.list(t, a, map[string]string{"orderBy": `[{"column":"id","direction":"asc"}]`, "limit": "3", "page": "2"})
			if got := ids(items); fmt.Sprint(got) != "[4 5 6]" {
				t.Fatalf("orderBy id asc page 2: %v", got)
			}
			items, meta = f.list(t, a, map[string]string{"filter": `{"conditions":[{"column":"id","operator":"gt","value":27}]}`, "sort": "id"})
			if got := ids(items); fmt.Sprint(got) != "[28 29 30]" || meta["total"].(float64) != 3 {
				t.Fatalf("filter id gt 27: %v total %v", got, meta["total"])
			}
			items, _ = f.list(t, a, map[string]string{"filter": `{"conditions":[{"column":"id","operator":"in","value":[2,9]}]}`, "sort": "id:desc"})
			if got := ids(items); fmt.Sprint(got) != "[9 2]" {
				t.Fatalf("filter id in: %v", got)
			}
			a.Do(t, "GET", f.path(`/items?filter={"conditions":[{"column":"id","operator":"contains","value":"1"}]}`), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path(`/items?filter={"conditions":[{"column":"id","operator":"eq","value":"abc"}]}`), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path("/items?sort=idx:desc"), nil).Expect(t, 400, "VALIDATION_ERROR")
			// the item number is a 64-bit integer: fractions and values beyond it are 400, never a 500 or a rounded match
			for _, c := range []string{`{"column":"id","operator":"eq","value":1e30}`, `{"column":"id","operator":"gt","value":9223372036854775807}`,
				`{"column":"id","operator":"eq","value":1.5}`, `{"column":"id","operator":"in","value":[1.5,2.5]}`,
				`{"column":"id","operator":"lt","value":"99999999999999999999"}`, `{"column":"id","operator":"in","value":"1,99999999999999999999"}`,
				`{"column":"item_number","operator":"eq","value":1e19}`} {
				a.Do(t, "GET", f.path("/items?filter="+url.QueryEscape(`{"conditions":[`+c+`]}`)), nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			a.Do(t, "POST", f.path("/views"), map[string]any{"title": "Broken", "config": map[string]any{
				"filter": map[string]any{"conditions": []any{map[string]any{"column": "id", "operator": "lt", "value": 1e19}}}}}).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("gzip and zstd decode to the same JSON", func(t *testing.T) {
			get := func(enc string) *kit.Response {
				req, _ := http.NewRequest("GET", s.URL+"/api/v1"+path, nil)
				if enc != "" {
					req.Header.Set("Accept-Encoding", enc)
				}
				return raw.Send(t, req)
			}
			plain := get("")
			if plain.Status != 200 || plain.Header.Get("Content-Encoding") != "" || len(plain.Raw) < 1024 {
				t.Fatalf("plain: %d %q %d bytes", plain.Status, plain.Header.Get("Content-Encoding"), len(plain.Raw))
			}
			decoders := map[string]func([]byte) ([]byte, error){
				"gzip": func(b []byte) ([]byte, error) {
					r, err := gzip.NewReader(bytes.NewReader(b))
					if err != nil {
						return nil, err
					}
					return io.ReadAll(r)
				},
				"zstd": func(b []byte) ([]byte, error) {
					d, err := zstd.NewReader(nil)
					if err != nil {
						return nil, err
					}
					defer d.Close()
					return d.DecodeAll(b, nil)
				},
			}
			for enc, accept := range map[string]string{"gzip": "gzip", "zstd": "zstd", "zstd ": "gzip;q=0.5, zstd"} {
				enc = strings.TrimSpace(enc)
				r := get(accept)
				if r.Status != 200 || r.Header.Get("Content-Encoding") != enc {
					t.Fatalf("%s: status %d, Content-Encoding %q", accept, r.Status, r.Header.Get("Content-Encoding"))
				}
				if !strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
					t.Fatalf("%s: Vary %q", accept, r.Header.Get("Vary"))
				}
				if len(r.Raw) >= len(plain.Raw) {
					t.Fatalf("%s: %d bytes, plain %d", accept, len(r.Raw), len(plain.Raw))
				}
				body, err := decoders[enc](r.Raw)
				if err != nil {
					t.Fatalf("%s: decode: %v", accept, err)
				}
				var x, y any
				if err := json.Unmarshal(body, &x); err != nil {
					t.Fatalf("%s: %v", accept, err)
				}
				_ = json.Unmarshal(plain.Raw, &y)
				xj, _ := json.Marshal(x)
				yj, _ := json.Marshal(y)
				if !bytes.Equal(xj, yj) {
					t.Fatalf("%s answer differs from the plain one", accept)
				}
			}
			// small answers stay plain
			req, _ := http.NewRequest("GET", s.URL+"/api/v1"+f.path("/items/1"), nil)
			req.Header.Set("Accept-Encoding", "gzip, zstd")
			if r := raw.Send(t, req); r.Status != 200 || len(r.Raw) >= 1024 && r.Header.Get("Content-Encoding") == "" ||
				len(r.Raw) < 1024 && r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("item: %d %q %d bytes", r.Status, r.Header.Get("Content-Encoding"), len(r.Raw))
			}
			// errors are JSON too, and the 400 stays readable
			req, _ = http.NewRequest("GET", s.URL+"/api/v1"+f.path("/items?sort=nope"), nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if r := raw.Send(t, req); r.Status != 400 || r.Error.Code != "VALIDATION_ERROR" {
				t.Fatalf("error answer: %d %s", r.Status, r.Raw)
			}
		})

		t.Run("q with and without the search index", func(t *testing.T) {
			g := newListFixture(t, s, "speed-q")
			g.addField(t, "note", "multiline_text", nil)
			g.create(t, a, map[string]any{"title": "Ёлка", "note": "Зелёная ПРОСЬБА"})
			g.create(t, a, map[string]any{"title": "Plain 100%", "note": "under_score"})
			g.create(t, a, map[string]any{"title": "Other"})
			check := func(mode string) {
				t.Helper()
				for q, want := range map[string][]string{"ёлк": {"Ёлка"}, "ЗЕЛЁН": {"Ёлка"}, "зелен": {}, "просьба": {"Ёлка"},
					"100%": {"Plain 100%"}, "r_s": {"Plain 100%"}, "0%P": {}, "PLA": {"Plain 100%"}, "ther": {"Other"}} {
					items, meta := g.list(t, a, map[string]string{"q": q, "sort": "id:asc"})
					if got := g.titles(items); fmt.Sprint(got) != fmt.Sprint(want) || meta["total"].(float64) != float64(len(want)) {
						t.Errorf("%s q=%s: %q total %v, want %q", mode, q, got, meta["total"], want)
					}
				}
			}
			check("index")
			a.Do(t, "PATCH", g.path(""), map[string]any{"searchEnabled": false}).Expect(t, 200)
			check("columns")
			a.Do(t, "PATCH", g.path(""), map[string]any{"searchEnabled": true}).Expect(t, 200)
			check("index rebuilt")
			a.Do(t, "PATCH", g.path("/items/3"), map[string]any{"fieldValues": map[string]any{"title": "Renamed"}}).Expect(t, 200)
			if items, _ := g.list(t, a, map[string]string{"q": "renam"}); fmt.Sprint(g.titles(items)) != "[Renamed]" {
				t.Fatalf("q after an edit: %q", g.titles(items))
			}
		})

		t.Run("schemaTag leaves out fields and view the caller holds", func(t *testing.T) {
			_, meta := f.list(t, a, map[string]string{"limit": "5"})
			tag, _ := meta["schemaTag"].(string)
			if tag == "" || meta["fields"] == nil || meta["view"] == nil || meta["schemaUnchanged"] != nil {
				t.Fatalf("first listing meta: %v", meta)
			}
			_, again := f.list(t, a, map[string]string{"limit": "5", "page": "2", "schemaTag": tag})
			if again["schemaTag"] != tag || again["schemaUnchanged"] != true || again["fields"] != nil || again["view"] != nil ||
				again["total"].(float64) != 30 || again["page"].(float64) != 2 {
				t.Fatalf("listing with the current tag: %v", again)
			}
			for _, stale := range []string{"stale", strings.Repeat("z", 64)} {
				if _, m := f.list(t, a, map[string]string{"limit": "5", "schemaTag": stale}); m["fields"] == nil || m["view"] == nil || m["schemaUnchanged"] != nil {
					t.Fatalf("listing with tag %q: %v", stale, m)
				}
			}
			a.Do(t, "GET", f.path("/items?schemaTag="+strings.Repeat("z", 65)), nil).Expect(t, 400, "VALIDATION_ERROR")
			// a new field changes the schema: the tag changes and fields come again
			f.addField(t, "extra", "text", nil)
			_, after := f.list(t, a, map[string]string{"limit": "5", "schemaTag": tag})
			if after["schemaTag"] == tag || after["fields"] == nil || after["view"] == nil || after["schemaUnchanged"] != nil {
				t.Fatalf("after a field was added: %v", after)
			}
		})

		t.Run("If-None-Match answers 304", func(t *testing.T) {
			first := a.Do(t, "GET", path, nil).Expect(t, 200)
			tag := first.Header.Get("ETag")
			if !strings.HasPrefix(tag, `W/"`) {
				t.Fatalf("ETag %q", tag)
			}
			for _, inm := range []string{tag, strings.TrimPrefix(tag, "W/"), `"other", ` + tag, "*"} {
				for _, enc := range []string{"", "gzip", "zstd"} {
					req, _ := http.NewRequest("GET", s.URL+"/api/v1"+path, nil)
					req.Header.Set("If-None-Match", inm)
					if enc != "" {
						req.Header.Set("Accept-Encoding", enc)
					}
					r := raw.Send(t, req)
					if r.Status != 304 || len(r.Raw) != 0 || r.Header.Get("ETag") != tag {
						t.Fatalf("If-None-Match %s (%s): %d %q %q", inm, enc, r.Status, r.Header.Get("ETag"), r.Raw)
					}
				}
			}
			req, _ := http.NewRequest("GET", s.URL+"/api/v1"+path, nil)
			req.Header.Set("If-None-Match", `W/"stale"`)
			if r := raw.Send(t, req); r.Status != 200 || r.Header.Get("ETag") != tag {
				t.Fatalf("stale tag: %d %q", r.Status, r.Header.Get("ETag"))
			}
			// a change of one item changes the tag
			a.Do(t, "PATCH", f.path("/items/3"), map[string]any{"fieldValues": map[string]any{"title": "changed"}}).Expect(t, 200)
			req, _ = http.NewRequest("GET", s.URL+"/api/v1"+path, nil)
			req.Header.Set("If-None-Match", tag)
			r := raw.Send(t, req)
			if r.Status != 200 || r.Header.Get("ETag") == tag || r.Header.Get("ETag") == "" {
				t.Fatalf("after a change: %d %q", r.Status, r.Header.Get("ETag"))
			}
		})
	})
}
