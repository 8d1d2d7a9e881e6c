package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlanRanges(t *testing.T) {
	many := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return "bytes=" + strings.Join(parts, ",")
	}
	type br = ByteRange
	cases := []struct {
		name   string
		header string
		size   int64
		want   RangeOutcome
		ranges []ByteRange
	}{
		{"absent", "", 100, RangeWhole, nil},
		{"one", "bytes=5-9", 100, RangePartial, []br{{5, 9}}},
		{"open end", "bytes=90-", 100, RangePartial, []br{{90, 99}}},
		{"end past size clipped", "bytes=90-1000", 100, RangePartial, []br{{90, 99}}},
		{"huge end", "bytes=90-999999999999999999999999", 100, RangePartial, []br{{90, 99}}},
		{"suffix", "bytes=-3", 100, RangePartial, []br{{97, 99}}},
		{"suffix longer than size", "bytes=-500", 100, RangePartial, []br{{0, 99}}},
		{"unit case and spaces", "Bytes= 1-2 , 3-4", 10000, RangePartial, []br{{1, 4}}},
		{"zero suffix", "bytes=-0", 100, RangeUnsatisfiable, nil},
		{"start at end", "bytes=100-", 100, RangeUnsatisfiable, nil},
		{"all past end", "bytes=200-300,100-", 100, RangeUnsatisfiable, nil},
		{"unsatisfiable dropped", "bytes=-0,5-9", 100, RangePartial, []br{{5, 9}}},
		{"empty content", "bytes=0-", 0, RangeUnsatisfiable, nil},
		{"reversed", "bytes=5-2", 100, RangeWhole, nil},
		{"other unit", "items=0-3", 100, RangeWhole, nil},
		{"no set", "bytes=", 100, RangeWhole, nil},
		{"bare dash", "bytes=-", 100, RangeWhole, nil},
		{"three parts", "bytes=1-2-3", 100, RangeWhole, nil},
		{"sign", "bytes=+1-2", 100, RangeWhole, nil},
		{"negative", "bytes=--2", 100, RangeWhole, nil},
		{"overlapping", "bytes=0-10,5-20,15-30", 1000, RangePartial, []br{{0, 30}}},
		{"adjacent", "bytes=0-9,10-19", 1000, RangePartial, []br{{0, 19}}},
		{"contained and suffix overlapping", "bytes=0-99,10-19,-950", 1000, RangePartial, []br{{0, 999}}},
		{"disjoint kept in asked order", "bytes=500-599,0-99", 100000, RangePartial, []br{{500, 599}, {0, 99}}},
		{"merged at the place of its first", "bytes=900-999,0-9,950-1100,5-20", 100000, RangePartial, []br{{900, 1100}, {0, 20}}},
		{"many overlapping", many(60000, func(int) string { return "0-0" }), 100000, RangePartial, []br{{0, 0}}},
		{"sliding overlap", many(5000, func(i int) string { return fmt.Sprintf("%d-%d", i, i+1000) }), 100000, RangePartial, []br{{0, 5999}}},
		{"sixteen disjoint", many(16, func(i int) string { return fmt.Sprintf("%d-%d", i*1000, i*1000+99) }), 100000, RangePartial, nil},
		{"seventeen disjoint", many(17, func(i int) string { return fmt.Sprintf("%d-%d", i*1000, i*1000+99) }), 100000, RangeWhole, nil},
		{"multipart larger than content", "bytes=0-0,2-2,4-4", 100, RangeWhole, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := PlanRanges(c.header, c.size)
			if p.Outcome != c.want {
				t.Fatalf("outcome %d, want %d (%v)", p.Outcome, c.want, p.Ranges)
			}
			if c.ranges != nil && !slices.Equal(p.Ranges, c.ranges) {
				t.Fatalf("ranges %v, want %v", p.Ranges, c.ranges)
			}
			var total int64
			for _, r := range p.Ranges {
				total += r.Len()
				if r.Start < 0 || r.End >= c.size || r.Start > r.End {
					t.Fatalf("range %v outside size %d", r, c.size)
				}
			}
			if total > c.size || len(p.Ranges) > MaxRanges {
				t.Fatalf("%d ranges, %d bytes of %d", len(p.Ranges), total, c.size)
			}
		})
	}
}

func TestServeContentRanges(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789"), 10000) // 100 KB
	serve := func(header map[string]string) *http.Response {
		r := httptest.NewRequest(http.MethodGet, "/f", nil)
		for k, v := range header {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("ETag", `"v1"`)
		ServeContent(w, r, time.Unix(1_700_000_000, 0), bytes.NewReader(content), int64(len(content)))
		return w.Result()
	}
	body := func(resp *http.Response) []byte {
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	var sb strings.Builder
	sb.WriteString("bytes=0-0")
	for sb.Len() < 400_000 {
		sb.WriteString(",0-0,1-1")
	}
	if resp := serve(map[string]string{"Range": sb.String()}); resp.StatusCode != 206 || len(body(resp)) != 2 {
		t.Fatalf("400 KB of overlapping ranges: %d", resp.StatusCode)
	}
	resp := serve(map[string]string{"Range": "bytes=-0"})
	if resp.StatusCode != 416 || resp.Header.Get("Content-Range") != "bytes */100000" {
		t.Fatalf("bytes=-0: %d %q", resp.StatusCode, resp.Header.Get("Content-Range"))
	}
	if resp := serve(map[string]string{"Range": "bytes=-0", "If-None-Match": `"v1"`}); resp.StatusCode != 304 {
		t.Fatalf("bytes=-0 with a matching If-None-Match: %d, want 304", resp.StatusCode)
	}
	if resp := serve(map[string]string{"Range": "bytes=10-19,0-9", "If-Range": `"v0"`}); resp.StatusCode != 200 {
		t.Fatalf("stale If-Range: %d, want 200", resp.StatusCode)
	}
	if resp := serve(map[string]string{"Range": "bytes=10-19,0-9"}); resp.StatusCode != 206 || string(body(resp)) != "01234567890123456789" || resp.Header.Get("Content-Range") != "bytes 0-19/100000" {
		t.Fatalf("adjacent ranges: %d %q", resp.StatusCode, resp.Header.Get("Content-Range"))
	}
}
