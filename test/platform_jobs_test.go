package test

import (
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

func TestPlatformJobsAndRetention(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		user, _ := s.CreateUser(t, "joe", false)
		s.Anon().Do(t, "GET", "/jobs", nil).Expect(t, 401, "UNAUTHORIZED")
		user.Do(t, "GET", "/jobs", nil).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "GET", "/jobs/settings/retention", nil).Expect(t, 403, "FORBIDDEN")
		admin.Do(t, "GET", "/jobs?status=bogus", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/jobs/not-a-uuid", nil).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "GET", "/jobs/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")

		if d := admin.Do(t, "GET", "/jobs/settings/retention", nil).Expect(t, 200).Map(t)["retentionDays"]; d != 30.0 {
			t.Fatalf("default retention %v", d)
		}
		admin.Do(t, "PUT", "/jobs/settings/retention", map[string]any{"retentionDays": 0}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "PUT", "/jobs/settings/retention", map[string]any{}).Expect(t, 400, "VALIDATION_ERROR")
		admin.Do(t, "PUT", "/jobs/settings/retention", map[string]any{"retentionDays": 7}).Expect(t, 200)
		if d := admin.Do(t, "GET", "/jobs/settings/retention", nil).Expect(t, 200).Map(t)["retentionDays"]; d != 7.0 {
			t.Fatalf("retention %v", d)
		}

		// a manual jobs-cleanup run is a job that a worker of the process runs
		run := admin.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 202).Map(t)
		if run["status"] != "pending" {
			t.Fatalf("run: %v", run)
		}
		id := run["jobId"].(string)
		j := waitJob(t, admin, id, "succeeded")
		if j["type"] != "jobs.cleanup" || j["attempts"] != 1.0 || j["startedAt"] == nil || j["completedAt"] == nil {
			t.Fatalf("job: %v", j)
		}
		if res := j["result"].(map[string]any); res["retentionDays"] != 7.0 {
			t.Fatalf("result: %v", res)
		}
		r := admin.Do(t, "GET", "/jobs?type=jobs.cleanup&status=succeeded&limit=10", nil).Expect(t, 200)
		var list []map[string]any
		r.Into(t, &list)
		if len(list) != 1 || list[0]["id"] != id || r.Meta["total"] != 1.0 || r.Meta["totalPages"] != 1.0 {
			t.Fatalf("list: %v meta %v", list, r.Meta)
		}
		admin.Do(t, "GET", "/jobs?status=failed", nil).Expect(t, 200)
	})
}

func TestPlatformServices(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		user, _ := s.CreateUser(t, "ann", false)
		user.Do(t, "GET", "/services", nil).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "PATCH", "/services/jobs-cleanup", map[string]any{"isEnabled": false}).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "POST", "/services/jobs-cleanup/run", nil).Expect(t, 403, "FORBIDDEN")

		var list []map[string]any
		admin.Do(t, "GET", "/services", nil).Expect(t, 200).Into(t, &list)
		byKey := map[string]map[string]any{}
		for _, r := range list {
			byKey[r["key"].(string)] = r
		}
		for _, k := range []string{"ad-sync", "search-crawler", "recycle-bin", "core-backup", "notifications", "jobs-cleanup"} {
			if byKey[k] == nil {
				t.Fatalf("service %s missing: %v", k, list)
			}
		}
		if byKey["ad-sync"]["available"] != false || byKey["jobs-cleanup"]["available"] != true || byKey["jobs-cleanup"]["cronExpression"] != "@daily" {
			t.Fatalf("services: %v", byKey)
		}

		for _, tc := range []struct {
			method, path string
			body         any
			status       int
			code, field  string
		}{
			{"PATCH", "/services/ad-sync", map[string]any{"isEnabled": true}, 409, "CONFLICT", ""},
			{"PATCH", "/services/search-crawler", map[string]any{"isEnabled": true}, 200, "", ""}, // available since search landed
			{"PATCH", "/services/jobs-cleanup", map[string]any{"cronExpression": "every tuesday"}, 400, "VALIDATION_ERROR", "cronExpression"},
			{"PATCH", "/services/jobs-cleanup", map[string]any{"cronExpression": "@every 5s"}, 400, "VALIDATION_ERROR", "cronExpression"},
			// parses, but never fires (30 February): would have fired on every scheduler pass
			{"PATCH", "/services/jobs-cleanup", map[string]any{"cronExpression": "0 0 30 2 *"}, 400, "VALIDATION_ERROR", "cronExpression"},
			{"PATCH", "/services/jobs-cleanup", map[string]any{"cronEnabled": true, "cronExpression": "0 0 31 4 *"}, 400, "VALIDATION_ERROR", "cronExpression"},
			{"PATCH", "/services/jobs-cleanup", map[string]any{"isEnabled": "yes"}, 400, "VALIDATION_ERROR", ""},
			{"PATCH", "/services/notifications", map[string]any{"cronEnabled": true}, 400, "VALIDATION_ERROR", "cronEnabled"},
			{"PATCH", "/services/nope", map[string]any{"isEnabled": true}, 404, "NOT_FOUND", ""},
			{"POST", "/services/ad-sync/run", map[string]any{}, 409, "CONFLICT", ""},
			{"POST", "/services/ad-sync/run", map[string]any{"deactivateMissing": true}, 409, "CONFLICT", ""},
			{"POST", "/services/core-backup/run", nil, 400, "VALIDATION_ERROR", ""},
			{"POST", "/services/notifications/run", nil, 400, "VALIDATION_ERROR", ""},
			{"POST", "/services/search-crawler/run", nil, 202, "", ""},
			{"POST", "/services/recycle-bin/run", nil, 202, "", ""}, // wired to the recycle bin since the access merge
			{"POST", "/services/nope/run", nil, 404, "NOT_FOUND", ""},
		} {
			r := admin.Do(t, tc.method, tc.path, tc.body)
			if r.Status != tc.status || r.Error.Code != tc.code || (tc.field != "" && r.Error.Details["field"] != tc.field) {
				t.Errorf("%s %s %v: %d %s", tc.method, tc.path, tc.body, r.Status, r.Raw)
			}
		}
		for _, expr := range []string{"0 */2 * * *", "@hourly", "@every 2h", "@every 15m", "@weekly", "30 6 * * 1"} {
			r := admin.Do(t, "PATCH", "/services/jobs-cleanup", map[string]any{"cronEnabled": true, "cronExpression": expr}).Expect(t, 200).Map(t)
			if r["cronExpression"] != expr || r["nextRunAt"] == nil {
				t.Fatalf("schedule %s: %v", expr, r)
			}
		}
		r := admin.Do(t, "PATCH", "/services/core-backup", map[string]any{"cronEnabled": true, "cronExpression": "0 1 * * *"}).Expect(t, 200).Map(t)
		if r["cronEnabled"] != true || r["available"] != true { // the backup runner exists since administration landed
			t.Fatalf("core-backup schedule: %v", r)
		}
		r = admin.Do(t, "PATCH", "/services/jobs-cleanup", map[string]any{"isEnabled": false}).Expect(t, 200).Map(t)
		if r["isEnabled"] != false || r["nextRunAt"] != nil {
			t.Fatalf("disable: %v", r)
		}
		// a manual run does not need isEnabled
		admin.Do(t, "POST", "/services/jobs-cleanup/run", map[string]any{}).Expect(t, 202)
	})
}
