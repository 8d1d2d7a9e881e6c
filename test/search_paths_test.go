package test

import (
	"fmt"
	"testing"

	"coreportal/test/kit"
)

// TestSearchPaths: renaming or moving a node and renaming a list or library
// show in the paths of every result below them at once (issue #12), and a
// crawl's job result reports its sources.
func TestSearchPaths(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		f := newListFixture(t, s, "routes")
		it := f.create(t, admin, map[string]any{f.fields["title"]: "Pelican report"})
		lf := newLibFixture(t, s, "scans")
		file := lf.put(t, admin, "", "pelican scan.txt", []byte("x"), 201)
		parent := mkNode(t, admin, "", "holding")
		paths := func() map[string]string {
			t.Helper()
			hits, _ := searchHits(t, admin, "pelican")
			out := map[string]string{}
			for _, h := range hits {
				out[h["type"].(string)] = h["path"].(string)
			}
			return out
		}
		check := func(item, file string) {
			t.Helper()
			if got := paths(); got["item"] != item || got["file"] != file {
				t.Fatalf("paths %v, want item %s, file %s", got, item, file)
			}
		}
		n, fn := int(it["id"].(float64)), num(file)
		check(fmt.Sprintf("/routes-node/lists/routes?item=%d", n), fmt.Sprintf("/scans-node/libraries/scans?file=%d", fn))
		admin.Do(t, "PATCH", "/nodes/"+f.nodeID, map[string]any{"slug": "ways"}).Expect(t, 200)
		admin.Do(t, "PATCH", "/nodes/"+lf.nodeID, map[string]any{"parentId": parent}).Expect(t, 200)
		check(fmt.Sprintf("/ways/lists/routes?item=%d", n), fmt.Sprintf("/holding/scans-node/libraries/scans?file=%d", fn))
		admin.Do(t, "PATCH", f.path(""), map[string]any{"slug": "paths"}).Expect(t, 200)
		admin.Do(t, "PATCH", lf.path(""), map[string]any{"slug": "images"}).Expect(t, 200)
		admin.Do(t, "PATCH", "/nodes/"+parent, map[string]any{"slug": "group"}).Expect(t, 200)
		check(fmt.Sprintf("/ways/lists/paths?item=%d", n), fmt.Sprintf("/group/scans-node/libraries/images?file=%d", fn))
		if hits, _ := searchHits(t, admin, "routes", "type", "list"); len(hits) != 1 || hits[0]["path"] != "/ways/lists/paths" {
			t.Fatalf("list %v", hits)
		}

		run := admin.Do(t, "POST", "/services/search-crawler/run", nil).Expect(t, 202).Map(t)
		res := waitJob(t, admin, run["jobId"].(string), "succeeded")["result"].(map[string]any)
		srcs, _ := res["sources"].([]any)
		if res["finished"] != true || res["checkpoint"] != "" || len(srcs) != 6 {
			t.Fatalf("crawl result %v", res)
		}
		for _, x := range srcs {
			sp := x.(map[string]any)
			if sp["done"] != true || (sp["name"] == "items" && (sp["processed"] != 1.0 || sp["total"] != 1.0)) {
				t.Fatalf("source %v", sp)
			}
		}
		check(fmt.Sprintf("/ways/lists/paths?item=%d", n), fmt.Sprintf("/group/scans-node/libraries/images?file=%d", fn))
	})
}
