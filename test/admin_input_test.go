package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestAdminInput covers attacker findings on the administration input: bodies
// of admin actions are JSON objects (malformed JSON or another type is 400),
// the backup catalogue path is checked, copies in a former catalogue stay
// restorable, uuid filters refuse malformed ids, and a restore refused by the
// verification ends maintenance with nothing changed.
func TestAdminInput(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)

		t.Run("action bodies", func(t *testing.T) {
			for _, op := range []struct{ method, path string }{
				{"POST", "/admin/logs/purge"}, {"POST", "/admin/logs/clear"},
				{"POST", "/admin/settings/backup/validate"}, {"POST", "/admin/backups"},
				{"PUT", "/admin/logs/settings"}, {"PUT", "/admin/settings/backup"},
				{"POST", "/admin/backups/00000000-0000-4000-8000-000000000000/restore"},
			} {
				for _, body := range []string{`{`, `[1]`, `"x"`, `1`, `null x`} {
					r := adm.Do(t, op.method, op.path, body)
					if r.Status != 400 || r.Error.Code != "VALIDATION_ERROR" {
						t.Fatalf("%s %s with %s: %d %s", op.method, op.path, body, r.Status, r.Raw)
					}
				}
			}
			adm.Do(t, "POST", "/admin/logs/purge", nil).Expect(t, 200)
			adm.Do(t, "POST", "/admin/logs/purge", `{}`).Expect(t, 200)
			adm.Do(t, "POST", "/admin/logs/clear", `{}`).Expect(t, 200)
		})

		t.Run("uuid filters", func(t *testing.T) {
			for _, bad := range []string{"notuuid", "1234", "00000000-0000-4000-8000-00000000000g"} {
				adm.Do(t, "GET", "/admin/logs?jobId="+bad, nil).Expect(t, 400, "VALIDATION_ERROR")
				adm.Do(t, "GET", "/admin/logs/export?format=json&jobId="+bad, nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			adm.Do(t, "GET", "/admin/logs?jobId=00000000-0000-4000-8000-000000000000", nil).Expect(t, 200)
			adm.Do(t, "GET", "/admin/logs?jobId=00000000-0000-4000-8000-00000000000A", nil).Expect(t, 200)
		})

		t.Run("catalogue path", func(t *testing.T) {
			def := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
			if p := def["path"].(string); !filepath.IsAbs(p) || def["dir"] != p {
				t.Fatalf("default path %v", def)
			}
			for _, bad := range []string{"/tmp/a\nb", "/tmp/a\x01b", "/tmp/a\tb", "/dev/null", "/proc/self", "/sys", "/dev/shm/x",
				"../../..", "backups", "./x", ""} {
				r := adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": bad, "retentionCount": 3, "retentionDays": 3})
				if r.Status != 400 || r.Error.Code != "VALIDATION_ERROR" {
					t.Fatalf("path %q: %d %s", bad, r.Status, r.Raw)
				}
			}
			// the default path goes back as it came
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": def["path"], "retentionCount": 3, "retentionDays": 3}).Expect(t, 200)
		})

		t.Run("former catalogue and refused restore", func(t *testing.T) {
			first, second := t.TempDir(), t.TempDir()
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": first + "/", "retentionCount": 5, "retentionDays": 0}).Expect(t, 200)
			kept := mkNode(t, adm, "", "kept-before")
			b := adm.Do(t, "POST", "/admin/backups", nil).Expect(t, 202).Map(t)
			rec := waitBackup(t, adm, b["id"].(string))
			if rec["status"] != "succeeded" {
				t.Fatalf("backup %v", rec)
			}
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": second, "retentionCount": 5, "retentionDays": 0}).Expect(t, 200)
			rl := adm.Do(t, "GET", "/admin/backups/restorable", nil).Expect(t, 200)
			if !strings.Contains(string(rl.Raw), rec["id"].(string)) {
				t.Fatalf("a copy in the former catalogue is not restorable: %s", rl.Raw)
			}
			if st := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t); st["copies"].(float64) < 1 {
				t.Fatalf("status %v", st)
			}

			// maintenance starts before the verification: the archive is a named
			// pipe, so the verification waits for the test to write it (garbage);
			// then the restore fails, maintenance ends and nothing changed
			file := filepath.Join(first, rec["fileName"].(string))
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(file, 0o600); err != nil {
				t.Fatal(err)
			}
			after := mkNode(t, adm, "", "made-after")
			rs := adm.Do(t, "POST", "/admin/backups/"+rec["id"].(string)+"/restore", nil).Expect(t, 202).Map(t)
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				r := adm.Do(t, "GET", "/admin/backups/"+rs["id"].(string), nil).Expect(t, 200).Map(t)
				if r["status"] == "running" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the restore did not start: %v", r)
				}
			}
			// the runner marks the record running, then raises the flag, which
			// every instance sees within a second (it is cached): writes are
			// refused from then on, before any row changes
			for i, deadline := 0, time.Now().Add(5*time.Second); ; i++ {
				r := adm.Do(t, "POST", "/nodes", map[string]any{"slug": fmt.Sprintf("while-verifying-%d", i), "title": "x"})
				if r.Status == 503 {
					r.Expect(t, 503, "UNAVAILABLE")
					break
				}
				r.Expect(t, 201)
				if time.Now().After(deadline) {
					t.Fatal("writes are still accepted 5 s after the restore started")
				}
				time.Sleep(50 * time.Millisecond)
			}
			pipe, err := os.OpenFile(file, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = pipe.Write([]byte(strings.Repeat("not a tar archive ", 100)))
			_ = pipe.Close()
			if r := waitBackup(t, adm, rs["id"].(string)); r["status"] != "failed" || !strings.Contains(r["error"].(string), "corrupt") {
				t.Fatalf("restore of a damaged archive: %v", r)
			}
			adm.Do(t, "GET", "/nodes/"+after, nil).Expect(t, 200)
			adm.Do(t, "GET", "/nodes/"+kept, nil).Expect(t, 200)
			mkNode(t, adm, "", "writable-again")
			if st := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t); st["maintenance"] != false {
				t.Fatalf("maintenance after a refused restore: %v", st)
			}

			// delete removes the file where it was written
			adm.Do(t, "DELETE", "/admin/backups/"+rec["id"].(string), nil).Expect(t, 200)
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Fatalf("the file in the former catalogue was not deleted: %v", err)
			}
		})
	})
}
