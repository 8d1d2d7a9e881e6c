package test

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"coreportal/internal/store/storetest"
	"coreportal/test/kit"
)

// waitBackup polls a journal record until it is finished.
func waitBackup(t *testing.T, c *kit.Client, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := c.Do(t, "GET", "/admin/backups/"+id, nil).Expect(t, 200).Map(t)
		if r["status"] == "succeeded" || r["status"] == "failed" {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("backup record %s: %v", id, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// backupKey is the CORE_BACKUP_KEY of the backup tests.
const backupKey = "correct horse battery staple 42"

// restoreCLI runs `coreportal restore --from file` against a database and
// data folder with CORE_BACKUP_KEY set to backupKey.
func restoreCLI(t *testing.T, dbURL, dataDir, file string) (string, error) {
	t.Helper()
	return restoreCLIWith(t, dbURL, dataDir, file, nil, "SEED_ADMIN_PASSWORD="+kit.AdminPassword, "CORE_BACKUP_KEY="+backupKey)
}

// restoreCLIWith runs `coreportal restore --from file` with extra flags and
// environment entries.
func restoreCLIWith(t *testing.T, dbURL, dataDir, file string, flags []string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), append([]string{"restore", "--from", file}, flags...)...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "CORE_DATA_DIR="+dataDir, "CORE_LOG_LEVEL=warn", "SEED_ADMIN_PASSWORD=", "CORE_BACKUP_KEY=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// seeded is what checkSeed expects after a restore.
type seeded struct {
	nodeID, listID, attID string
	attBody               []byte
	items                 int
}

func seedBackupData(t *testing.T, s *kit.Server) (*listFixture, seeded) {
	f := newListFixture(t, s, "backed")
	f.addField(t, "amount", "number", nil)
	f.addField(t, "state", "choice", map[string]any{"choices": []string{"new", "done"}})
	f.addField(t, "due", "date", nil)
	f.admin.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
	for i := 1; i <= 5; i++ {
		f.create(t, f.admin, map[string]any{"title": fmt.Sprintf("item %d", i), "amount": i * 10, "state": "new", "due": "2026-01-0" + fmt.Sprint(i)})
	}
	f.admin.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"state": "done"}}).Expect(t, 200)
	body := bytes.Repeat([]byte("attachment bytes "), 1000)
	att := f.admin.Upload(t, "POST", f.path("/items/1/attachments"), "file", "report.txt", body, nil).Expect(t, 201).Map(t)
	_, uid := s.CreateUser(t, "backupuser", false)
	grant(t, s, "list", f.listID, "user", uid, "edit")
	return f, seeded{nodeID: f.nodeID, listID: f.listID, attID: att["id"].(string), attBody: body, items: 5}
}

// checkWhole checks that every item of the list is whole: the count agrees
// with the rows, item 1 has its versions and its attachment bytes.
func checkWhole(t *testing.T, c *kit.Client, sd seeded, minItems int) {
	t.Helper()
	f := &listFixture{listID: sd.listID}
	items, meta := f.list(t, c, map[string]string{"limit": "500"})
	total, rows := int(meta["total"].(float64)), len(items)
	for page := 2; rows < total && page < 100; page++ {
		more, _ := f.list(t, c, map[string]string{"limit": "500", "page": fmt.Sprint(page)})
		if len(more) == 0 {
			break
		}
		rows += len(more)
	}
	if total != rows || rows < minItems {
		t.Fatalf("restored list: count %d, %d rows, want at least %d", total, rows, minItems)
	}
	// the system columns came back whole (16-byte guids and user ids and
	// millisecond stamps on SQLite, uuid and bigint on PostgreSQL): the item
	// is found by its guid and says who made it and when, as before
	first := items[len(items)-1]
	byGUID := c.Do(t, "GET", f.path("/items/"+first["guid"].(string)), nil).Expect(t, 200).Map(t)
	for _, k := range []string{"id", "guid", "created_at", "created_by", "updated_at", "updated_by"} {
		if fmt.Sprint(byGUID[k]) != fmt.Sprint(first[k]) || first[k] == nil || first[k] == "" {
			t.Fatalf("restored item %s: %v by guid, %v listed", k, byGUID[k], first[k])
		}
	}
	if ts, _ := first["created_at"].(string); !strings.HasSuffix(ts, "Z") || len(ts) < 20 {
		t.Fatalf("restored created_at %q", ts)
	}
	if !strings.Contains(fmt.Sprint(byGUID["field_values"]), first["created_by"].(string)) {
		t.Fatalf("restored item lost its creator: %v", byGUID["field_values"])
	}
	vs := c.Do(t, "GET", f.path("/items/1/versions"), nil).Expect(t, 200)
	var versions struct{ Versions []map[string]any }
	vs.Into(t, &versions)
	if len(versions.Versions) != 2 {
		t.Fatalf("item 1 versions: %s", vs.Raw)
	}
	d := c.Do(t, "GET", "/attachments/"+sd.attID+"/download", nil)
	if d.Status != 200 || !bytes.Equal(d.Raw, sd.attBody) {
		t.Fatalf("attachment after restore: %d, %d bytes", d.Status, len(d.Raw))
	}
	perms := c.Do(t, "GET", "/permissions?resourceType=list&resourceId="+sd.listID, nil).Expect(t, 200)
	if !strings.Contains(string(perms.Raw), "edit") {
		t.Fatalf("ACL not restored: %s", perms.Raw)
	}
}

func TestAdminBackup(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		catalogue := t.TempDir()
		set := adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": catalogue, "retentionCount": 2, "retentionDays": 30}).Expect(t, 200).Map(t)
		if set["dir"] != catalogue {
			t.Fatalf("settings %v", set)
		}
		v := adm.Do(t, "POST", "/admin/settings/backup/validate", nil).Expect(t, 202).Map(t)
		if r := waitBackup(t, adm, v["id"].(string)); r["status"] != "succeeded" {
			t.Fatalf("validate %v", r)
		}
		st := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
		if st["lastValidatedOk"] != true || st["runnerOnline"] != true {
			t.Fatalf("status %v", st)
		}
		f, sd := seedBackupData(t, s)
		f.create(t, f.admin, map[string]any{"title": "zebrafinch ledger", "amount": 7})
		adm.Do(t, "POST", "/pages", map[string]any{"nodeId": f.nodeID, "slug": "zebrafinch-notes", "title": "zebrafinch notes", "content": "<p>birds</p>"}).Expect(t, 201)

		// a backup taken while 8 writers keep creating items
		var stop atomic.Bool
		var wg sync.WaitGroup
		var created atomic.Int64
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; !stop.Load(); i++ {
					r := f.admin.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("w%d-%d", w, i), "amount": i}})
					if r.Status == 201 {
						created.Add(1)
					}
				}
			}(w)
		}
		time.Sleep(300 * time.Millisecond)
		b := adm.Do(t, "POST", "/admin/backups", nil).Expect(t, 202).Map(t)
		rec := waitBackup(t, adm, b["id"].(string))
		stop.Store(true)
		wg.Wait()
		if rec["status"] != "succeeded" || rec["size"].(float64) <= 0 || rec["fileName"] == "" {
			t.Fatalf("backup %v", rec)
		}
		archive := filepath.Join(catalogue, rec["fileName"].(string))
		if created.Load() == 0 {
			t.Fatal("the writers created nothing")
		}

		// change everything, then restore through the API
		adm.Do(t, "DELETE", f.path(""), nil).Expect(t, 200)
		// written once the snapshot was taken: not in the archive
		ran, _ := auditRows(t, adm, "?action=backup.run")
		if len(ran) == 0 {
			t.Fatal("the backup was not audited")
		}
		later := mkNode(t, adm, "", "after-backup")
		rs := adm.Do(t, "POST", "/admin/backups/"+rec["id"].(string)+"/restore", nil).Expect(t, 202).Map(t)
		// while the restore runs, writes answer 503 UNAVAILABLE and reads keep working
		saw503 := false
		for i, deadline := 0, time.Now().Add(60*time.Second); time.Now().Before(deadline); i++ {
			w := adm.Do(t, "POST", "/nodes", map[string]any{"slug": fmt.Sprintf("probe-%d", i), "title": "probe"})
			if w.Status >= 500 && w.Status != 503 {
				t.Fatalf("write during restore: %d %s", w.Status, w.Raw)
			}
			if w.Status == 503 {
				if w.Error.Code != "UNAVAILABLE" {
					t.Fatalf("write during restore: %s", w.Raw)
				}
				if !saw503 {
					adm.Do(t, "GET", "/nodes", nil).Expect(t, 200)
				}
				saw503 = true
			} else if saw503 {
				break // maintenance is over
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !saw503 {
			t.Fatal("no write answered 503 while the restore ran")
		}
		if r := waitBackup(t, adm, rs["id"].(string)); r["status"] != "succeeded" {
			t.Fatalf("restore %v", r)
		}
		adm = s.Admin(t)
		if r := waitBackup(t, adm, rs["id"].(string)); r["details"].(map[string]any)["verified"] != true {
			t.Fatalf("restore with the key not verified: %v", r)
		}
		checkWhole(t, adm, sd, sd.items)
		adm.Do(t, "GET", "/nodes/"+later, nil).Expect(t, 404)
		if rows, _ := auditRows(t, adm, "?action=backup.restore"); len(rows) == 0 {
			t.Fatal("restore not audited")
		}
		// the audit log is append-only: what was recorded after the backup survives the restore
		if after, _ := auditRows(t, adm, "?action=backup.run"); !strings.Contains(fmt.Sprint(after), ran[0]["id"].(string)) {
			t.Fatalf("the audit record written after the backup is gone: %v", after)
		}
		checkSearchAfterRestore(t, adm, f)
		rl := adm.Do(t, "GET", "/admin/backups/restorable", nil).Expect(t, 200)
		if !strings.Contains(string(rl.Raw), rec["id"].(string)) {
			t.Fatalf("restorable %s", rl.Raw)
		}

		t.Run("corrupt archives are refused before anything changes", func(t *testing.T) {
			raw, err := os.ReadFile(archive)
			if err != nil {
				t.Fatal(err)
			}
			flipped := append([]byte(nil), raw...)
			at := bytes.Index(flipped, sd.attBody[:200]) // inside a part: tar padding is not checksummed
			if at < 0 {
				t.Fatal("the attachment is not in the archive")
			}
			flipped[at+100] ^= 0x40
			bad := filepath.Join(t.TempDir(), "flipped.tar")
			_ = os.WriteFile(bad, flipped, 0o600)
			missing := filepath.Join(t.TempDir(), "missing.tar")
			dropBlob(t, raw, missing)
			mkNode(t, adm, "", "kept-node")
			for _, file := range []string{bad, missing} {
				out, err := restoreCLI(t, s.DBURL, s.DataDir, file)
				if err == nil || !strings.Contains(out, "corrupt") {
					t.Fatalf("restore of %s: %v %s", filepath.Base(file), err, out)
				}
			}
			nodes := adm.Do(t, "GET", "/nodes", nil).Expect(t, 200)
			if !strings.Contains(string(nodes.Raw), "kept-node") {
				t.Fatal("a refused restore changed the data")
			}
		})

		t.Run("across dialects", func(t *testing.T) {
			var dbURL string
			if s.DBURL == "" {
				if storetest.PostgresURL(t) == "" {
					t.Skip("TEST_DATABASE_URL not set")
				}
				dbURL = storetest.FreshPostgresDB(t) // SQLite backup -> PostgreSQL
			} // PostgreSQL backup -> SQLite (dbURL "")
			dir := t.TempDir()
			if out, err := restoreCLI(t, dbURL, dir, archive); err != nil {
				t.Fatalf("restore --from: %v\n%s", err, out)
			}
			other := kit.StartWith(t, dbURL, dir, "serve")
			checkWhole(t, other.Admin(t), sd, sd.items)
			f2 := &listFixture{listID: sd.listID, admin: other.Admin(t)}
			checkSearchAfterRestore(t, f2.admin, f2) // coreportal restore queues the crawl as well
			f2.create(t, other.Admin(t), map[string]any{"title": "after the move", "amount": 1})
		})

		t.Run("retention and delete", func(t *testing.T) {
			for i := 0; i < 2; i++ {
				b := adm.Do(t, "POST", "/admin/backups", nil).Expect(t, 202).Map(t)
				waitBackup(t, adm, b["id"].(string))
			}
			rl := adm.Do(t, "GET", "/admin/backups/restorable", nil).Expect(t, 200)
			var copies []map[string]any
			rl.Into(t, &copies)
			if len(copies) != 2 {
				st := adm.Do(t, "GET", "/admin/settings/backup", nil)
				t.Fatalf("retentionCount 2 kept %d copies: %s\n%s", len(copies), rl.Raw, st.Raw)
			}
			if _, err := os.Stat(archive); !os.IsNotExist(err) {
				t.Fatal("the oldest copy's file was not deleted")
			}
			id := copies[0]["id"].(string)
			adm.Do(t, "DELETE", "/admin/backups/"+id, nil).Expect(t, 200)
			adm.Do(t, "GET", "/admin/backups/"+id, nil).Expect(t, 404)
			j := adm.Do(t, "GET", "/admin/backups?limit=2", nil).Expect(t, 200)
			if j.Meta["total"].(float64) < 3 {
				t.Fatalf("journal %v", j.Meta)
			}
			adm.Do(t, "POST", "/admin/backups/"+id+"/restore", nil).Expect(t, 404)
			for _, bad := range []string{"not-a-uuid", "12345", id + "0"} {
				adm.Do(t, "POST", "/admin/backups/"+bad+"/restore", nil).Expect(t, 400, "VALIDATION_ERROR")
				adm.Do(t, "GET", "/admin/backups/"+bad, nil).Expect(t, 400, "VALIDATION_ERROR")
				adm.Do(t, "DELETE", "/admin/backups/"+bad, nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": "", "retentionCount": 1, "retentionDays": 1}).Expect(t, 400, "VALIDATION_ERROR")
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": "x", "retentionCount": -1, "retentionDays": 1}).Expect(t, 400, "VALIDATION_ERROR")
			user, _ := s.CreateUser(t, "nobackup", false)
			user.Do(t, "POST", "/admin/backups", nil).Expect(t, 403, "FORBIDDEN")
			user.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 403, "FORBIDDEN")
		})
	}, "CORE_BACKUP_KEY="+backupKey)
}

// checkSearchAfterRestore: the restore queues a crawl that rebuilds the
// search index; a pre-restore item and page are found by GET /search and by listing q,
// an edit after the restore is indexed, and the dashboard answers.
func checkSearchAfterRestore(t *testing.T, adm *kit.Client, f *listFixture) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; {
		hits, _ := searchHits(t, adm, "zebrafinch")
		if hasHit(hits, "item", "zebrafinch ledger") && hasHit(hits, "page", "zebrafinch notes") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a pre-restore item and page are not found by search after the restore: %v", hitTitles(hits))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if items, _ := f.list(t, adm, map[string]string{"q": "zebrafinch"}); len(items) != 1 {
		t.Fatalf("listing q after restore: %v", f.titles(items))
	}
	adm.Do(t, "PATCH", f.path("/items/2"), map[string]any{"fieldValues": map[string]any{"title": "quokka minutes"}}).Expect(t, 200)
	if hits, _ := searchHits(t, adm, "quokka"); !hasHit(hits, "item", "quokka minutes") {
		t.Fatalf("an edit after the restore is not indexed: %v", hitTitles(hits))
	}
	if items, _ := f.list(t, adm, map[string]string{"q": "quokka"}); len(items) != 1 {
		t.Fatalf("listing q of an edit after restore: %v", f.titles(items))
	}
	dash := adm.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 200).Map(t)
	si := dash["maintenance"].(map[string]any)["searchIndex"].(map[string]any)
	if si["records"].(float64) < 5 {
		t.Fatalf("dashboard searchIndex after restore %v", si)
	}
}

// dropBlob copies the archive raw to path without its first blob part.
func dropBlob(t *testing.T, raw []byte, path string) {
	t.Helper()
	var out bytes.Buffer
	tr := tar.NewReader(bytes.NewReader(raw))
	tw := tar.NewWriter(&out)
	dropped := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !dropped && strings.HasPrefix(h.Name, "blobs/") {
			dropped = true
			continue
		}
		_ = tw.WriteHeader(h)
		_, _ = io.Copy(tw, tr)
	}
	_ = tw.Close()
	if !dropped {
		t.Fatal("the archive holds no blob")
	}
	_ = os.WriteFile(path, out.Bytes(), 0o600)
}
