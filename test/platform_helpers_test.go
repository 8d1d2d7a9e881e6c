package test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/mail/mailtest"
	"coreportal/internal/store"
	"coreportal/test/kit"
)

// waitJob polls GET /jobs/{id} until the job reaches status.
func waitJob(t *testing.T, c *kit.Client, id, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var j map[string]any
	for time.Now().Before(deadline) {
		j = c.Do(t, "GET", "/jobs/"+id, nil).Expect(t, 200).Map(t)
		if j["status"] == status {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s: %v, want status %s", id, j, status)
	return nil
}

// configureSMTP points the server's notifications settings at smtp.
func configureSMTP(t *testing.T, admin *kit.Client, smtp *mailtest.Server, extra map[string]any) {
	t.Helper()
	body := map[string]any{"host": smtp.Host, "port": smtp.Port, "fromEmail": "portal@example.com", "fromName": "Core Portal"}
	for k, v := range extra {
		body[k] = v
	}
	admin.Do(t, "PUT", "/admin/settings/smtp", body).Expect(t, 200)
}

// openDB opens the server's database from the test process (to write outbox rows).
func openDB(t *testing.T, s *kit.Server) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), s.DBURL, s.DataDir+"/core.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// registerList registers a list id with the access engine (as the lists
// capability does when it creates one) so that list-scoped receivers pass
// the edit check; the test process writes the row directly.
func registerList(t *testing.T, db *store.DB) string {
	t.Helper()
	id := uuid.NewString()
	if _, err := db.W(context.Background()).ExecContext(context.Background(),
		"INSERT INTO acl_objects (id, type, parent_id, inherits) VALUES (?, 'list', NULL, ?)", id, true); err != nil {
		t.Fatal(err)
	}
	return id
}
