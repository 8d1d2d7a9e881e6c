package test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"

	"coreportal/test/kit"
)

// TestLibrariesHardening covers flaws found by black-box review: isolation
// boundaries on delete and move, multipart parsing, UUID validation, upload
// races, invalid ranges and name-collision answers.
func TestLibrariesHardening(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		t.Run("isolated descendants", func(t *testing.T) { testLibraryIsolatedDescendants(t, s) })
		t.Run("malformed ids", func(t *testing.T) { testLibraryMalformedIDs(t, s) })
		t.Run("invalid range", func(t *testing.T) { testLibraryInvalidRange(t, s) })
		t.Run("multipart order", func(t *testing.T) { testLibraryMultipartOrder(t, s) })
		t.Run("upload race", func(t *testing.T) { testLibraryUploadRace(t, s) })
		t.Run("hidden names", func(t *testing.T) { testLibraryHiddenNames(t, s) })
	})
}

// testLibraryIsolatedDescendants: delete on a folder or library does not
// reach an isolated entry below it, so deleting or moving the container is refused.
func testLibraryIsolatedDescendants(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "bound")
	a := f.admin
	u, uid := s.CreateUser(t, "boundary", false)
	box := f.folder(t, a, nil, "box")
	dest := f.folder(t, a, nil, "dest")
	vault := f.folder(t, a, num(box), "vault")
	f.put(t, a, vault["guid"].(string), "v.txt", []byte("v"), 201)
	f.put(t, a, box["guid"].(string), "plain.txt", []byte("p"), 201)
	a.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(vault)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	grantLib(t, a, "node", f.nodeID, uid, "delete", nil)

	u.Do(t, "GET", f.path("/files/%d", num(vault)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "DELETE", f.path("/files/%d", num(box)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "PATCH", f.path("/files/%d", num(box)), map[string]any{"parentId": num(dest)}).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "DELETE", "/libraries/"+f.libID, nil).Expect(t, 403, "FORBIDDEN")
	// nothing moved
	if got := a.Do(t, "GET", f.path("/files/%d", num(vault)), nil).Expect(t, 200).Map(t); fmt.Sprint(got["parentId"]) != fmt.Sprint(box["id"]) {
		t.Fatalf("vault moved: %v", got)
	}
	a.Do(t, "GET", f.path("/files/%d", num(box)), nil).Expect(t, 200)
	a.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 200)
	// a folder without isolated content stays the caller's to move and delete
	u.Do(t, "PATCH", f.path("/files/%d", num(dest)), map[string]any{"name": "dest2"}).Expect(t, 200)

	// edit on the isolated folder allows the move, not the delete
	grantLib(t, a, "file", fmt.Sprint(num(vault)), uid, "edit", map[string]any{"libraryId": f.libID})
	u.Do(t, "PATCH", f.path("/files/%d", num(box)), map[string]any{"parentId": num(dest)}).Expect(t, 200)
	u.Do(t, "DELETE", f.path("/files/%d", num(box)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "DELETE", "/libraries/"+f.libID, nil).Expect(t, 403, "FORBIDDEN")
	// delete on it: both deletes pass
	grantLib(t, a, "file", fmt.Sprint(num(vault)), uid, "delete", map[string]any{"libraryId": f.libID})
	u.Do(t, "DELETE", f.path("/files/%d", num(box)), nil).Expect(t, 200)
	a.Do(t, "GET", f.path("/files/%d", num(vault)), nil).Expect(t, 404)

	// the administrator deletes a library with isolated content
	g := newLibFixture(t, s, "bound2")
	iso := g.folder(t, g.admin, nil, "iso")
	g.admin.Do(t, "PATCH", g.path("/files/%d/permission-settings", num(iso)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	g.admin.Do(t, "DELETE", "/libraries/"+g.libID, nil).Expect(t, 200)
}

// testLibraryMalformedIDs: every malformed route or body id answers 400
// (CONTRACT.md), a well-formed missing one 404.
func testLibraryMalformedIDs(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "badids")
	a := f.admin
	doc := f.put(t, a, "", "doc.txt", []byte("doc"), 201)
	missing := "00000000-0000-0000-0000-000000000001"
	for _, c := range []struct{ method, path string }{
		{"GET", "/libraries/not-a-uuid"},
		{"PATCH", "/libraries/not-a-uuid"},
		{"DELETE", "/libraries/not-a-uuid"},
		{"GET", "/libraries/not-a-uuid/fields"},
		{"GET", "/libraries/not-a-uuid/files"},
		{"POST", "/libraries/not-a-uuid/folders"},
		{"GET", "/libraries/not-a-uuid/files/1"},
		{"GET", f.path("/files/zzz")},
		{"GET", f.path("/files/-1")},
		{"GET", f.path("/files/0")},
		{"PATCH", f.path("/files/zzz")},
		{"DELETE", f.path("/files/zzz")},
		{"GET", f.path("/files/zzz/versions")},
		{"GET", f.path("/files/zzz/permission-settings")},
		{"POST", f.path("/files/%d/versions/zzz/restore", num(doc))},
		{"PATCH", f.path("/fields/zzz")},
		{"DELETE", f.path("/fields/zzz")},
	} {
		var body any
		switch {
		case strings.Contains(c.path, "/fields/"):
			body = map[string]any{"title": "x"}
		case strings.HasSuffix(c.path, "not-a-uuid") && c.method == "PATCH":
			body = map[string]any{"title": "x"}
		case strings.HasSuffix(c.path, "/restore"):
		case c.method == "PATCH" || c.method == "POST":
			body = map[string]any{"name": "x"}
		}
		a.Do(t, c.method, c.path, body).Expect(t, 400, "VALIDATION_ERROR")
	}
	if resp, _ := f.get(t, a, "zzz", nil); resp.StatusCode != 400 {
		t.Fatalf("download of a malformed ref: %d", resp.StatusCode)
	}
	f.upload(t, a, "", "x.txt", "", []byte("x")).Expect(t, 201)
	for _, p := range []any{-1, 0.5, "zzz", true} {
		a.Do(t, "PATCH", f.path("/files/%d", num(doc)), map[string]any{"parentId": p}).Expect(t, 400, "VALIDATION_ERROR")
	}
	a.Do(t, "GET", "/libraries/"+missing, nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "GET", f.path("/files/9999"), nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "GET", f.path("/files/%s", missing), nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "POST", f.path("/files/%d/versions/%s/restore", num(doc), missing), nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "PATCH", f.path("/fields/%s", missing), map[string]any{"title": "x"}).Expect(t, 404, "NOT_FOUND")
}

// testLibraryInvalidRange: an unparsable Range is ignored (RFC 9110 14.2),
// a well-formed unsatisfiable one answers 416.
func testLibraryInvalidRange(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "ranges")
	rec := f.put(t, f.admin, "", "r.txt", []byte("0123456789"), 201)
	for _, h := range []string{"bytes=5-2", "bytes=x-3", "bytes=1-2-3", "items=0-3", "bytes=", "bytes=-"} {
		resp, body := f.get(t, f.admin, num(rec), map[string]string{"Range": h})
		if resp.StatusCode != 200 || string(body) != "0123456789" {
			t.Fatalf("Range %q: %d %q", h, resp.StatusCode, body)
		}
	}
	if resp, body := f.get(t, f.admin, num(rec), map[string]string{"Range": "bytes=2-4"}); resp.StatusCode != 206 || string(body) != "234" {
		t.Fatalf("valid range: %d %q", resp.StatusCode, body)
	}
	for _, h := range []string{"bytes=10-", "bytes=20-30"} {
		if resp, _ := f.get(t, f.admin, num(rec), map[string]string{"Range": h}); resp.StatusCode != 416 {
			t.Fatalf("Range %q past the end: %d", h, resp.StatusCode)
		}
	}
}

// sendParts uploads a multipart body of parts in order: [name, value]; name
// "file" makes a file part named value with content "data".
func (f *libFixture) sendParts(t *testing.T, c *kit.Client, parts ...[2]string) *kit.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		if p[0] == "file" {
			w, _ := mw.CreateFormFile("file", p[1])
			_, _ = w.Write([]byte("data"))
		} else {
			_ = mw.WriteField(p[0], p[1])
		}
	}
	_ = mw.Close()
	req, err := http.NewRequest("POST", c.S.URL+"/api/v1"+f.path("/files"), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Send(t, req)
}

// testLibraryMultipartOrder: parentId must precede the file part; after it,
// twice, or with two file parts the upload answers 400 and stores nothing.
func testLibraryMultipartOrder(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "parts")
	a := f.admin
	dir := f.folder(t, a, nil, "dir")
	rootFile := f.put(t, a, "", "same.txt", []byte("root"), 201)
	id := fmt.Sprint(num(dir))
	for _, parts := range [][][2]string{
		{{"file", "same.txt"}, {"parentId", id}},
		{{"file", "same.txt"}, {"parentId", "garbage"}},
		{{"parentId", id}, {"parentId", id}, {"file", "same.txt"}},
		{{"parentId", id}, {"file", "same.txt"}, {"file", "other.txt"}},
	} {
		f.sendParts(t, a, parts...).Expect(t, 400, "VALIDATION_ERROR")
	}
	if got := f.names(t, a, ""); fmt.Sprint(got) != "[dir same.txt]" {
		t.Fatalf("root after refused uploads: %v", got)
	}
	if got := f.names(t, a, "parentId="+id); len(got) != 0 {
		t.Fatalf("folder after refused uploads: %v", got)
	}
	var vs []map[string]any
	a.Do(t, "GET", f.path("/files/%d/versions", num(rootFile)), nil).Expect(t, 200).Into(t, &vs)
	if len(vs) != 1 {
		t.Fatalf("root file got versions from refused uploads: %d", len(vs))
	}
	// before the file, with an unrelated field after it: accepted in the folder
	f.sendParts(t, a, [2]string{"parentId", id}, [2]string{"file", "same.txt"}, [2]string{"note", "x"}).Expect(t, 201)
	if got := f.names(t, a, "parentId="+id); fmt.Sprint(got) != "[same.txt]" {
		t.Fatalf("folder: %v", got)
	}
}

// testLibraryUploadRace: parallel uploads of one new name make one file
// (201) and versions of it (200), never 409.
func testLibraryUploadRace(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "race")
	const n = 6
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = f.sendParts(t, f.admin, [2]string{"file", "raced.txt"}).Status
		}()
	}
	wg.Wait()
	created, versions := 0, 0
	for _, c := range codes {
		switch c {
		case 201:
			created++
		case 200:
			versions++
		}
	}
	if created != 1 || versions != n-1 {
		t.Fatalf("parallel uploads of one new name: %v", codes)
	}
	var files []map[string]any
	f.admin.Do(t, "GET", f.path("/files"), nil).Expect(t, 200).Into(t, &files)
	if len(files) != 1 {
		t.Fatalf("files: %v", files)
	}
	var vs []map[string]any
	f.admin.Do(t, "GET", f.path("/files/%d/versions", num(files[0])), nil).Expect(t, 200).Into(t, &vs)
	if len(vs) != n {
		t.Fatalf("versions: %d", len(vs))
	}
}

// testLibraryHiddenNames: a name held by an entry the caller cannot view
// answers the same 409 as a visible folder of that name, never 403.
func testLibraryHiddenNames(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "hidnames")
	a := f.admin
	u, uid := s.CreateUser(t, "hidnames", false)
	hid := f.put(t, a, "", "hid.txt", []byte("h"), 201)
	f.folder(t, a, nil, "seen")
	a.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(hid)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	grantLib(t, a, "library", f.libID, uid, "add", nil)
	u.Do(t, "GET", f.path("/files/%d", num(hid)), nil).Expect(t, 403, "FORBIDDEN")
	f.upload(t, u, "", "HID.txt", "", []byte("x")).Expect(t, 409, "CONFLICT")
	f.upload(t, u, "", "seen", "", []byte("x")).Expect(t, 409, "CONFLICT")
	u.Do(t, "POST", f.path("/folders"), map[string]any{"name": "hid.txt"}).Expect(t, 409, "CONFLICT")
	var vs []map[string]any
	a.Do(t, "GET", f.path("/files/%d/versions", num(hid)), nil).Expect(t, 200).Into(t, &vs)
	if len(vs) != 1 {
		t.Fatalf("hidden file got a version: %d", len(vs))
	}
}
