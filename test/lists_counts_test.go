package test

import (
	"fmt"
	"sync"
	"testing"

	"coreportal/test/kit"
)

// The count of an unfiltered listing comes from a counter kept by the item
// table's triggers; every path that adds or removes items must keep it equal
// to a real count (a filter that matches every item is counted by SQL).
func TestListsItemCountsFollowEveryWrite(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "counts")
		a := f.admin
		f.addField(t, "qty", "number", nil, map[string]any{"isRequired": true})
		viewer, vid := s.CreateUser(t, "cora", false)
		listGrant(t, a, "list", f.listID, vid, "view")

		check := func(t *testing.T, c *kit.Client, want int) {
			t.Helper()
			_, meta := f.list(t, c, nil)
			_, filtered := f.list(t, c, map[string]string{"filter": `{"logic":"and","conditions":[{"column":"item_number","operator":"gt","value":0}]}`})
			if meta["totalInView"] != float64(want) || meta["total"] != float64(want) || meta["totalPages"] != float64((want+49)/50) ||
				filtered["total"] != float64(want) || filtered["totalInView"] != float64(want) {
				t.Fatalf("want %d items: unfiltered %v, filtered total %v / %v", want, meta, filtered["total"], filtered["totalInView"])
			}
		}
		bin := func(t *testing.T) []map[string]any {
			var entries []map[string]any
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &entries)
			return entries
		}

		check(t, a, 0)
		t.Run("concurrent creates", func(t *testing.T) {
			var wg sync.WaitGroup
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 15; i++ {
						r := a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("w%d-%d", w, i), "qty": i}})
						if r.Status != 201 {
							t.Errorf("create: %d %s", r.Status, r.Raw)
						}
					}
				}()
			}
			wg.Wait()
			check(t, a, 60)
			check(t, viewer, 60)
		})
		t.Run("a refused create counts nothing", func(t *testing.T) {
			a.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "no qty"}}).Expect(t, 400)
			check(t, a, 60)
		})
		t.Run("quick edit creates only its good rows", func(t *testing.T) {
			r := a.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{"creates": []any{
				map[string]any{"clientRowId": "q1", "fieldValues": map[string]any{"title": "q1", "qty": 1}},
				map[string]any{"clientRowId": "q2", "fieldValues": map[string]any{"title": "q2", "qty": "bad"}},
				map[string]any{"clientRowId": "q3", "fieldValues": map[string]any{"title": "q3", "qty": 3}},
			}}).Expect(t, 200).Map(t)
			if len(r["created"].([]any)) != 2 {
				t.Fatalf("quick edit %v", r)
			}
			check(t, a, 62)
		})
		t.Run("delete and restore", func(t *testing.T) {
			a.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 200)
			a.Do(t, "DELETE", f.path("/items/2"), nil).Expect(t, 200)
			check(t, a, 60)
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+bin(t)[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			check(t, a, 61)
		})
		t.Run("hidden items are not counted for the caller who cannot see them", func(t *testing.T) {
			f.isolate(t, 3, vid)
			check(t, viewer, 60)
			check(t, a, 61)
		})
		t.Run("list delete, restore, recycle content", func(t *testing.T) {
			a.Do(t, "DELETE", f.path(""), nil).Expect(t, 200)
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+bin(t)[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			check(t, a, 61)
			r := a.Do(t, "POST", f.path("/recycle-content"), nil).Expect(t, 200).Map(t)
			if r["moved"] != 61.0 {
				t.Fatalf("moved %v", r)
			}
			check(t, a, 0)
			entries := bin(t)
			for _, e := range entries[:5] {
				a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+e["id"].(string)+"/restore", nil).Expect(t, 200)
			}
			check(t, a, 5)
			f.create(t, a, map[string]any{"title": "after", "qty": 1})
			check(t, a, 6)
		})
	})
}
