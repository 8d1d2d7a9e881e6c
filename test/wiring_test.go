package test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// TestRecycleBinService checks the wiring between the services registry and
// the recycle bin: the service is available, and a run purges entries older
// than its retention (30 days) and keeps newer ones.
func TestRecycleBinService(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		node := adm.Do(t, "POST", "/nodes", map[string]any{"slug": "bin", "title": "Bin"}).Expect(t, 201).Map(t)["id"].(string)
		db := openDB(t, s)
		ctx := context.Background()
		for _, age := range []time.Duration{40 * 24 * time.Hour, time.Hour} {
			_, err := db.W(ctx).ExecContext(ctx, `INSERT INTO recycle_bin (id, node_id, kind, title, deleted_at, payload) VALUES (?, ?, 'list_item', 'old', ?, '{}')`,
				uuid.NewString(), node, time.Now().Add(-age).UTC())
			if err != nil {
				t.Fatal(err)
			}
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
		if res := job["result"].(map[string]any); res["purged"].(float64) != 1 {
			t.Fatalf("result %v", res)
		}
		var left []map[string]any
		adm.Do(t, "GET", "/nodes/"+node+"/recycle-bin", nil).Expect(t, 200).Into(t, &left)
		if len(left) != 1 {
			t.Fatalf("entries left: %v", left)
		}
	})
}
