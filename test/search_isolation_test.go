package test

import (
	"fmt"
	"testing"

	"coreportal/test/kit"
)

// isolateNow breaks inheritance on a file or folder and deletes the records
// that breaking it copied, as an administrator locking it away does.
func isolateNow(t *testing.T, f *libFixture, rec map[string]any) {
	t.Helper()
	f.admin.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(rec)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	var recs []map[string]any
	f.admin.Do(t, "GET", "/permissions?resourceType=file&resourceId="+rec["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
	for _, r := range recs {
		f.admin.Do(t, "DELETE", "/permissions/"+r["id"].(string), nil).Expect(t, 200)
	}
}

// TestSearchHidesFilesIsolatedRightAfterUpload: an administrator uploads
// files and isolates each at once (the file itself, or the folder it was
// uploaded to), removing the copied records, while the uploads' text
// extraction runs. A user with view on the library then finds none of them,
// by name or by content, and each answers 403, on both databases.
func TestSearchHidesFilesIsolatedRightAfterUpload(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		reader, readerID := s.CreateUser(t, "isoreader", false)
		f := newLibFixture(t, s, "isolated")
		grantLib(t, admin, "node", f.nodeID, readerID, "view", nil)
		const tries = 8
		var files []map[string]any
		for i := range tries {
			name := fmt.Sprintf("quince%c report.txt", 'a'+i)
			body := []byte(fmt.Sprintf("the budget of damson%c", 'a'+i))
			file := f.put(t, admin, "", name, body, 201)
			isolateNow(t, f, file)
			folder := f.folder(t, admin, nil, fmt.Sprintf("folder %d", i))
			inner := f.put(t, admin, folder["guid"].(string), "inner "+name, body, 201)
			isolateNow(t, f, folder)
			files = append(files, file, inner)
		}
		waitTextJobs(t, admin)
		if hits, _ := searchHits(t, admin, "damsona"); len(hits) != 2 {
			t.Fatalf("the administrator finds %v: the text was not extracted", hitTitles(hits))
		}
		for i := range tries {
			for _, q := range []string{fmt.Sprintf("quince%c", 'a'+i), fmt.Sprintf("damson%c", 'a'+i)} {
				if hits, meta := searchHits(t, reader, q); len(hits) != 0 || meta["total"] != 0.0 {
					t.Errorf("the reader finds %v (total %v) for %q", hitTitles(hits), meta["total"], q)
				}
			}
		}
		for _, file := range files {
			reader.Do(t, "GET", f.path("/files/%d", num(file)), nil).Expect(t, 403, "FORBIDDEN")
		}
	})
}
