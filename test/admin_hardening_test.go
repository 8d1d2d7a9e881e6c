package test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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
