package test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// multipartBody builds a form from (name, filename, content) triples; an
// empty filename makes a plain field.
func multipartBody(t *testing.T, parts ...[3]string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var err error
		if p[1] == "" {
			err = mw.WriteField(p[0], p[2])
		} else {
			var w interface{ Write([]byte) (int, error) }
			w, err = mw.CreateFormFile(p[0], p[1])
			if err == nil {
				_, err = w.Write([]byte(p[2]))
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, mw.FormDataContentType()
}

// TestAdminHardeningAttachmentOneFile: an attachment upload with two file
// parts is refused (400) and stores neither the row nor the blob; other
// extra parts are ignored as before.
func TestAdminHardeningAttachmentOneFile(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "onefile")
		f.create(t, f.admin, map[string]any{"title": "with attachment"})
		send := func(parts ...[3]string) *kit.Response {
			body, ct := multipartBody(t, parts...)
			req, err := http.NewRequest("POST", s.URL+"/api/v1"+f.path("/items/1/attachments"), body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ct)
			return f.admin.Send(t, req)
		}
		blobFiles := func() int {
			n := 0
			_ = filepath.Walk(s.DataDir, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() && filepath.Base(filepath.Dir(filepath.Dir(p))) == "attachments" {
					n++
				}
				return nil
			})
			return n
		}
		before := blobFiles()
		send([3]string{"file", "a.txt", "first"}, [3]string{"file", "b.txt", "second"}).Expect(t, 400, "VALIDATION_ERROR")
		send([3]string{"file", "a.txt", "first"}, [3]string{"note", "", "x"}, [3]string{"file", "b.txt", "second"}).Expect(t, 400, "VALIDATION_ERROR")
		var atts []map[string]any
		f.admin.Do(t, "GET", f.path("/items/1/attachments"), nil).Expect(t, 200).Into(t, &atts)
		if len(atts) != 0 || blobFiles() != before {
			t.Fatalf("a refused upload stored something: %d rows, %d -> %d blob files", len(atts), before, blobFiles())
		}
		send([3]string{"note", "", "x"}, [3]string{"file", "a.txt", "only"}, [3]string{"other", "", "y"}).Expect(t, 201)
		f.admin.Do(t, "GET", f.path("/items/1/attachments"), nil).Expect(t, 200).Into(t, &atts)
		if len(atts) != 1 || blobFiles() != before+1 {
			t.Fatalf("one upload: %d rows, %d -> %d blob files", len(atts), before, blobFiles())
		}
	})
}

// TestAdminHardeningThrottle: a 429 carries Retry-After equal to
// details.retryAfterSeconds, and the sign-in throttle counts an IPv6 client
// by its /64 (another address of the same /64 shares the budget, another
// /64 does not).
func TestAdminHardeningThrottle(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		_, _ = s.CreateUser(t, "sixfour", false)
		for i := 0; i < 5; i++ {
			loginFrom(t, s, fmt.Sprintf("2001:db8:aa:1::%x", i+1), "sixfour", "bad-password").Expect(t, 401)
		}
		r := loginFrom(t, s, "2001:db8:aa:1:ffff:ffff:ffff:fffe", "sixfour", "password-sixfour").Expect(t, 429, "RATE_LIMITED")
		secs, _ := r.Error.Details["retryAfterSeconds"].(float64)
		if ra := r.Header.Get("Retry-After"); secs < 1 || ra != strconv.Itoa(int(secs)) {
			t.Fatalf("Retry-After %q, details.retryAfterSeconds %v", ra, secs)
		}
		// another /64, and IPv4, keep their own budget
		loginFrom(t, s, "2001:db8:aa:2::1", "sixfour", "password-sixfour").Expect(t, 200)
		loginFrom(t, s, "203.0.113.9", "sixfour", "password-sixfour").Expect(t, 200)
		// a success elsewhere does not lift the pair's lock on the first /64
		loginFrom(t, s, "2001:db8:aa:1::99", "sixfour", "password-sixfour").Expect(t, 429, "RATE_LIMITED")
	}, "CORE_TRUSTED_PROXIES=127.0.0.1")
}

// TestAdminAuditAdminActions: the administration actions #14 lists that are
// not service-config saves reach the audit log: the installed release
// version (a setting kept outside the service configs) and emptying the
// search index. (update.start is checked in TestUpdate, where a vendor exists.)
func TestAdminAuditAdminActions(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		before := adm.Do(t, "GET", "/admin/settings/release", nil).Expect(t, 200).Map(t)["installedReleaseVersion"]
		adm.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "7.8.9"}).Expect(t, 200)
		rows, n := auditRows(t, adm, "?action=settings.update&resourceType=settings&resourceId=release")
		if n != 1 {
			t.Fatalf("release setting audited %d times", n)
		}
		d, _ := rows[0]["details"].(map[string]any)
		b, _ := d["before"].(map[string]any)
		a, _ := d["after"].(map[string]any)
		if b["installedReleaseVersion"] != before || a["installedReleaseVersion"] != "7.8.9" {
			t.Fatalf("release setting audit: %d %v", n, rows)
		}
		adm.Do(t, "PUT", "/admin/settings/release", map[string]any{"installedReleaseVersion": "not a version"}).Expect(t, 400, "VALIDATION_ERROR")
		if _, n := auditRows(t, adm, "?action=settings.update&resourceId=release"); n != 1 {
			t.Fatalf("a refused change was audited (%d rows)", n)
		}
		adm.Do(t, "POST", "/admin/search/clear", nil).Expect(t, 200)
		if _, n := auditRows(t, adm, "?action=search.clear&resourceType=search"); n != 1 {
			t.Fatalf("search clear audited %d times", n)
		}
	})
}

// TestAdminAuditCoverage walks the audit events #14 lists that no other
// black-box test checks: item inheritance break and restore, password
// resets (never the password), group create / update / members / delete,
// recycle-bin restore and purge, a backup run and a backup deletion.
func TestAdminAuditCoverage(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		expect := func(query string, want int) []map[string]any {
			t.Helper()
			rows, n := auditRows(t, adm, query)
			if n != want {
				t.Fatalf("audit %s: %d records, want %d: %v", query, n, want, rows)
			}
			return rows
		}
		// ACL inheritance of an item
		f := newListFixture(t, s, "audited")
		f.create(t, f.admin, map[string]any{"title": "one"})
		f.create(t, f.admin, map[string]any{"title": "two"})
		f.admin.Do(t, "PATCH", f.path("/items/1/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 200)
		f.admin.Do(t, "PATCH", f.path("/items/1/permission-settings"), map[string]any{"inheritFromParent": true}).Expect(t, 200)
		expect("?action=acl.break_inheritance", 1)
		expect("?action=acl.restore_inheritance", 1)

		// users and groups
		_, uid := s.CreateUser(t, "audited-user", false)
		adm.Do(t, "POST", "/admin/users/"+uid+"/reset-password", map[string]any{"password": "Another-pass-9137"}).Expect(t, 200)
		if r := expect("?action=user.reset_password&resourceId="+uid, 1); strings.Contains(fmt.Sprint(r), "Another-pass-9137") {
			t.Fatalf("the password reached the audit log: %v", r)
		}
		g := adm.Do(t, "POST", "/groups", map[string]any{"name": "Audited group"}).Expect(t, 201).Map(t)
		gid := g["id"].(string)
		adm.Do(t, "PATCH", "/groups/"+gid, map[string]any{"description": "changed"}).Expect(t, 200)
		adm.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": uid}).Expect(t, 200)
		adm.Do(t, "DELETE", "/groups/"+gid+"/members/"+uid, nil).Expect(t, 200)
		adm.Do(t, "DELETE", "/groups/"+gid, nil).Expect(t, 200)
		expect("?action=group.create&resourceId="+gid, 1)
		expect("?action=group.update&resourceId="+gid, 1)
		expect("?action=group.members&resourceId="+gid, 2)
		expect("?action=group.delete&resourceId="+gid, 1)

		// recycle bin: delete (resource.delete), restore, delete again, purge
		f.admin.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 200)
		f.admin.Do(t, "DELETE", f.path("/items/2"), nil).Expect(t, 200)
		var bin []map[string]any
		adm.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
		if len(bin) != 2 {
			t.Fatalf("bin %v", bin)
		}
		expect("?action=resource.delete&resourceType=list_item", 2)
		adm.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+bin[0]["id"].(string)+"/restore", nil).Expect(t, 200)
		adm.Do(t, "DELETE", "/nodes/"+f.nodeID+"/recycle-bin/"+bin[1]["id"].(string), nil).Expect(t, 200)
		expect("?action=recyclebin.restore", 1)
		expect("?action=recyclebin.purge", 1)

		// backups: a run and a deletion
		adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": t.TempDir(), "retentionCount": 0, "retentionDays": 0}).Expect(t, 200)
		b := adm.Do(t, "POST", "/admin/backups", nil).Expect(t, 202).Map(t)
		id := b["id"].(string)
		if r := waitBackup(t, adm, id); r["status"] != "succeeded" {
			t.Fatalf("backup %v", r)
		}
		expect("?action=backup.run&resourceId="+id, 1)
		adm.Do(t, "DELETE", "/admin/backups/"+id, nil).Expect(t, 200)
		expect("?action=backup.delete&resourceId="+id, 1)
	})
}
