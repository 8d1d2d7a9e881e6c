package test

import (
	"context"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestRecycleBinService checks the wiring between the services registry and
// the recycle bin: the service is available, and a run purges entries older
// than its retention (30 days) and keeps newer ones.
func TestRecycleBinService(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		f := newListFixture(t, s, "binsvc")
		f.create(t, adm, map[string]any{"title": "old item"})
		f.create(t, adm, map[string]any{"title": "recent item"})
		adm.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 200)
		adm.Do(t, "DELETE", f.path("/items/2"), nil).Expect(t, 200)
		node := f.nodeID
		db := openDB(t, s)
		ctx := context.Background()
		if _, err := db.W(ctx).ExecContext(ctx, "UPDATE recycle_bin SET deleted_at = ? WHERE title = ?", time.Now().Add(-40*24*time.Hour).UTC(), "old item"); err != nil {
			t.Fatal(err)
		}
		var svcs []map[string]any
		adm.Do(t, "GET", "/services", nil).Expect(t, 200).Into(t, &svcs)
		for _, sv := range svcs {
			if sv["key"] == "recycle-bin" && sv["available"] != true {
				t.Fatalf("recycle-bin not available: %v", sv)
			}
		}
		run := adm.Do(t, "POST", "/services/recycle-bin/run", map[string]any{}).Expect(t, 202).Map(t)
		job := waitJob(t, adm, run["jobId"].(string), "succeeded")
		if res := job["result"].(map[string]any); res["purged"].(float64) != 1 || res["failed"].(float64) != 0 {
			t.Fatalf("result %v", res)
		}
		var left []map[string]any
		adm.Do(t, "GET", "/nodes/"+node+"/recycle-bin", nil).Expect(t, 200).Into(t, &left)
		if len(left) != 1 || left[0]["title"] != "recent item" {
			t.Fatalf("entries left: %v", left)
		}
	})
}
