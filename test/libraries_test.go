package test

import (
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"coreportal/internal/blob/blobtest"
	"coreportal/test/kit"
)

// TestLibraries runs every library rule on one server per backend (1 MB upload limit).
func TestLibraries(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		t.Run("records", func(t *testing.T) { testLibraryRecords(t, s) })
		t.Run("files", func(t *testing.T) { testLibraryFiles(t, s) })
		t.Run("download", func(t *testing.T) { testLibraryDownload(t, s) })
		t.Run("versions", func(t *testing.T) { testLibraryVersions(t, s) })
		t.Run("fields", func(t *testing.T) { testLibraryFields(t, s) })
		t.Run("recycle", func(t *testing.T) { testLibraryRecycle(t, s) })
		t.Run("rights", func(t *testing.T) { testLibraryRights(t, s) })
		t.Run("lookups", func(t *testing.T) { testLibraryLookups(t, s) })
	}, "CORE_MAX_UPLOAD_MB=1")
}

// TestLibrariesS3 runs the rules that touch bytes with the blobs on an
// S3-compatible server on loopback (gofakes3 in the test process).
func TestLibrariesS3(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv := blobtest.StartS3(t) // one bucket per backend: the checks count its keys
			testLibrariesS3(t, srv, kit.Start(t, b, append(srv.Env(), "CORE_MAX_UPLOAD_MB=1")...))
		})
	}
}

func testLibrariesS3(t *testing.T, srv *blobtest.S3Server, s *kit.Server) {
	blobCounters.Store(s, func(t *testing.T) int {
		n := 0
		for _, k := range srv.Keys(t) {
			if strings.HasPrefix(k, "libraries/") {
				n++
			}
		}
		return n
	})
	t.Run("files", func(t *testing.T) { testLibraryFiles(t, s) })
	t.Run("download", func(t *testing.T) { testLibraryDownload(t, s) })
	t.Run("versions", func(t *testing.T) { testLibraryVersions(t, s) })
	t.Run("recycle", func(t *testing.T) { testLibraryRecycle(t, s) })
	if ents, _ := os.ReadDir(filepath.Join(s.DataDir, "blobs", "libraries")); len(ents) != 0 {
		t.Fatalf("library blobs written to the local folder: %v", ents)
	}
}

func testLibraryRecords(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "docs")
	a := f.admin
	a.Do(t, "POST", "/libraries", map[string]any{"nodeId": f.nodeID, "title": "Again", "slug": "docs"}).Expect(t, 409, "CONFLICT")
	a.Do(t, "POST", "/libraries", map[string]any{"nodeId": "nope", "title": "X", "slug": "x"}).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "POST", "/libraries", map[string]any{"nodeId": f.nodeID, "title": "X", "slug": "Bad Slug"}).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "POST", "/libraries", map[string]any{"nodeId": "00000000-0000-0000-0000-000000000001", "title": "X", "slug": "x"}).Expect(t, 404, "NOT_FOUND")
	got := a.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 200).Map(t)
	if got["slug"] != "docs" || got["nodeId"] != f.nodeID || got["fields"] == nil {
		t.Fatalf("library: %v", got)
	}
	a.Do(t, "GET", "/libraries/00000000-0000-0000-0000-000000000001", nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "PATCH", "/libraries/"+f.libID, map[string]any{"title": "Documents", "description": "All of them"}).Expect(t, 200)
	var ls []map[string]any
	a.Do(t, "GET", "/libraries?nodeId="+f.nodeID, nil).Expect(t, 200).Into(t, &ls)
	if len(ls) != 1 || ls[0]["title"] != "Documents" {
		t.Fatalf("libraries of node: %v", ls)
	}
	r := a.Do(t, "GET", "/routes/resolve?path="+url.QueryEscape("/docs-node/libraries/docs"), nil).Expect(t, 200).Map(t)
	if r["type"] != "library" || r["libraryId"] != f.libID || r["path"] != "/docs-node/libraries/docs" {
		t.Fatalf("resolve: %v", r)
	}
	c := a.Do(t, "GET", "/routes/canonical?type=library&nodeId="+f.nodeID+"&resourceId="+f.libID, nil).Expect(t, 200).Map(t)
	if c["path"] != "/docs-node/libraries/docs" {
		t.Fatalf("canonical: %v", c)
	}
}

func testLibraryFiles(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "files")
	a := f.admin
	b := f.folder(t, a, nil, "beta")
	f.folder(t, a, nil, "Alpha")
	a.Do(t, "POST", f.path("/folders"), map[string]any{"name": "ALPHA"}).Expect(t, 409, "CONFLICT")
	for _, bad := range []string{"", "a/b", "..", "x\ny", "a\u0085b", "rtl\u202egnp.exe", "x\u2066y"} {
		a.Do(t, "POST", f.path("/folders"), map[string]any{"name": bad}).Expect(t, 400, "VALIDATION_ERROR")
	}
	f.put(t, a, "", "b.txt", bytes.Repeat([]byte("b"), 30), 201)
	f.put(t, a, "", "A.txt", bytes.Repeat([]byte("a"), 10), 201)
	c := f.put(t, a, "", "c.txt", bytes.Repeat([]byte("c"), 20), 201)
	if got := f.names(t, a, ""); !reflect.DeepEqual(got, []string{"Alpha", "beta", "A.txt", "b.txt", "c.txt"}) {
		t.Fatalf("default order: %v", got)
	}
	if got := f.names(t, a, "sort=size"); !reflect.DeepEqual(got[2:], []string{"A.txt", "c.txt", "b.txt"}) {
		t.Fatalf("by size: %v", got)
	}
	if got := f.names(t, a, "sort=-name"); !reflect.DeepEqual(got, []string{"beta", "Alpha", "c.txt", "b.txt", "A.txt"}) {
		t.Fatalf("by name desc: %v", got)
	}
	r := a.Do(t, "GET", f.path("/files?limit=2&page=2"), nil).Expect(t, 200)
	if r.Meta["total"] != float64(5) || r.Meta["totalPages"] != float64(3) {
		t.Fatalf("meta: %v", r.Meta)
	}
	a.Do(t, "GET", f.path("/files?sort=colour"), nil).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "GET", f.path("/files?parentId=999"), nil).Expect(t, 404, "NOT_FOUND")

	// record by number and by guid
	byNum := a.Do(t, "GET", f.path("/files/%d", num(c)), nil).Expect(t, 200).Map(t)
	byGUID := a.Do(t, "GET", f.path("/files/%s", c["guid"]), nil).Expect(t, 200).Map(t)
	if byNum["guid"] != byGUID["guid"] || byNum["item_type"] != "file" || byNum["file_size"] != float64(20) || byNum["parentId"] != nil {
		t.Fatalf("record: %v / %v", byNum, byGUID)
	}
	a.Do(t, "GET", f.path("/files/9999"), nil).Expect(t, 404, "NOT_FOUND")

	// upload into a folder (form field), rename, move, refusals
	sub := f.folder(t, a, num(b), "sub")
	in := f.put(t, a, b["guid"].(string), "inside.txt", []byte("x"), 201)
	if in["parentId"] != b["id"] {
		t.Fatalf("uploaded into folder: %v", in)
	}
	a.Do(t, "PATCH", f.path("/files/%d", num(c)), map[string]any{"name": "b.TXT"}).Expect(t, 409, "CONFLICT")
	a.Do(t, "PATCH", f.path("/files/%d", num(b)), map[string]any{"parentId": num(sub)}).Expect(t, 409, "CONFLICT")
	a.Do(t, "PATCH", f.path("/files/%d", num(b)), map[string]any{"parentId": num(b)}).Expect(t, 409, "CONFLICT")
	a.Do(t, "PATCH", f.path("/files/%d", num(c)), map[string]any{"parentId": num(c)}).Expect(t, 400, "VALIDATION_ERROR")
	moved := a.Do(t, "PATCH", f.path("/files/%d", num(c)), map[string]any{"name": "renamed.txt", "parentId": num(sub)}).Expect(t, 200).Map(t)
	if moved["name"] != "renamed.txt" || moved["parentId"] != sub["id"] {
		t.Fatalf("moved: %v", moved)
	}
	if got := f.names(t, a, "parentId="+sub["guid"].(string)); !reflect.DeepEqual(got, []string{"renamed.txt"}) {
		t.Fatalf("sub folder: %v", got)
	}
	back := a.Do(t, "PATCH", f.path("/files/%d", num(c)), map[string]any{"parentId": nil}).Expect(t, 200).Map(t)
	if back["parentId"] != nil {
		t.Fatalf("moved to root: %v", back)
	}

	// over the limit: 413 and nothing stored
	before := blobCount(t, s)
	f.upload(t, a, "", "big.bin", "", bytes.Repeat([]byte("z"), 1<<20+10)).Expect(t, 413, "PAYLOAD_TOO_LARGE")
	if got := f.names(t, a, ""); len(got) != 5 || blobCount(t, s) != before {
		t.Fatalf("after refused upload: %v, blobs %d -> %d", got, before, blobCount(t, s))
	}
	f.upload(t, a, "", "exact.bin", "", bytes.Repeat([]byte("z"), 1<<20)).Expect(t, 201)
	// an upload name loses the same marks (C1 controls, bidi overrides) instead of being refused
	if got := f.upload(t, a, "", "inv\u202eFDP\u0085.exe", "text/plain", []byte("x")).Expect(t, 201).Map(t)["name"]; got != "invFDP.exe" {
		t.Fatalf("upload name with bidi and C1 marks stored as %q", got)
	}
}

// blobCounters counts the library blobs of servers whose blobs are not in
// the local folder (TestLibrariesS3 registers its bucket).
var blobCounters sync.Map // *kit.Server -> func(*testing.T) int

// blobCount counts the stored blobs of libraries.
func blobCount(t *testing.T, s *kit.Server) int {
	if fn, ok := blobCounters.Load(s); ok {
		return fn.(func(*testing.T) int)(t)
	}
	n := 0
	_ = filepath.WalkDir(filepath.Join(s.DataDir, "blobs", "libraries"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func testLibraryDownload(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "dl")
	a := f.admin
	names := map[string]string{ // uploaded name -> stored name
		"Отчёт 2024 — итог.txt":   "Отчёт 2024 — итог.txt",
		`..\..\windows\evil".txt`: `evil".txt`,
		"../../etc/passwd":        "passwd",
		`quote"; filename=x.exe`:  `quote"; filename=x.exe`,
		"日本語ファイル.txt":             "日本語ファイル.txt",
	}
	for up, want := range names {
		rec := f.upload(t, a, "", up, "text/plain", []byte("hello "+want)).Expect(t, 201).Map(t)
		if rec["name"] != want {
			t.Fatalf("stored name of %q: %v", up, rec["name"])
		}
		resp, body := f.get(t, a, num(rec), nil)
		cd := resp.Header.Get("Content-Disposition")
		if resp.StatusCode != 200 || string(body) != "hello "+want || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.HasPrefix(cd, `attachment; filename="`) || starName(cd) != want {
			t.Fatalf("download %q: %d %q %v", want, resp.StatusCode, body, resp.Header)
		}
		if strings.Count(cd, `"`) != 2 || strings.ContainsAny(cd, "\r\n") {
			t.Fatalf("unsafe Content-Disposition %q", cd)
		}
	}
	// CR/LF in a name (RFC 2231 filename*) never reaches the header
	crlf := f.uploadRaw(t, a, `form-data; name="file"; filename*=UTF-8''a%0D%0AX-Evil%3A%201.txt`, []byte("crlf"))
	if crlf["name"] != "aX-Evil: 1.txt" {
		t.Fatalf("CR/LF name: %v", crlf["name"])
	}
	if resp, _ := f.get(t, a, num(crlf), nil); resp.Header.Get("X-Evil") != "" || resp.StatusCode != 200 {
		t.Fatalf("header injection: %v", resp.Header)
	}

	// content type: declared, sniffed, corrected
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 40)...)
	for _, c := range []struct {
		name, declared string
		content        []byte
		want           string
	}{
		{"pic.png", "", png, "image/png"},
		{"pic2.png", "application/octet-stream", png, "image/png"},
		{"fake.png", "image/png", []byte("<html><script>alert(1)</script></html>"), "text/html; charset=utf-8"},
		{"data.csv", "text/csv", []byte("a,b\n1,2\n"), "text/csv"},
	} {
		rec := f.upload(t, a, "", c.name, c.declared, c.content).Expect(t, 201).Map(t)
		resp, _ := f.get(t, a, num(rec), nil)
		if rec["mime_type"] != c.want || resp.Header.Get("Content-Type") != c.want {
			t.Fatalf("%s: stored %v, served %q, want %q", c.name, rec["mime_type"], resp.Header.Get("Content-Type"), c.want)
		}
	}

	// Range, ETag, If-None-Match
	data := []byte("0123456789abcdefghij")
	rec := f.put(t, a, "", "range.bin", data, 201)
	resp, body := f.get(t, a, num(rec), map[string]string{"Range": "bytes=5-9"})
	if resp.StatusCode != 206 || string(body) != "56789" || resp.Header.Get("Content-Range") != "bytes 5-9/20" {
		t.Fatalf("range: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	resp, body = f.get(t, a, rec["guid"], map[string]string{"Range": "bytes=-3"})
	if resp.StatusCode != 206 || string(body) != "hij" {
		t.Fatalf("suffix range: %d %q", resp.StatusCode, body)
	}
	if resp, _ = f.get(t, a, num(rec), map[string]string{"Range": "bytes=50-60"}); resp.StatusCode != 416 {
		t.Fatalf("unsatisfiable range: %d", resp.StatusCode)
	}
	resp, _ = f.get(t, a, num(rec), nil)
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if resp, _ = f.get(t, a, num(rec), map[string]string{"If-None-Match": etag}); resp.StatusCode != 304 {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}
	f.put(t, a, "", "range.bin", []byte("new content"), 200)
	resp, body = f.get(t, a, num(rec), map[string]string{"If-None-Match": etag})
	if resp.StatusCode != 200 || string(body) != "new content" || resp.Header.Get("ETag") == etag {
		t.Fatalf("after a new version: %d %q %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	folder := f.folder(t, a, nil, "not-a-file")
	if resp, _ = f.get(t, a, num(folder), nil); resp.StatusCode != 400 {
		t.Fatalf("folder download: %d", resp.StatusCode)
	}
}

func testLibraryVersions(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "ver")
	a := f.admin
	fid := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Status", "fieldType": "text"}).Expect(t, 201).Map(t)["id"].(string)
	v1 := f.put(t, a, "", "doc.txt", []byte("version one"), 201)
	a.Do(t, "PATCH", f.path("/files/%d", num(v1)), map[string]any{"fieldValues": map[string]any{fid: "draft"}}).Expect(t, 200)
	v2 := f.upload(t, a, "", "DOC.txt", "", []byte("version two!")).Expect(t, 200).Map(t)
	if v2["guid"] != v1["guid"] || v2["file_size"] != float64(12) || v2["name"] != "doc.txt" || v2["field_values"].(map[string]any)[fid] != "draft" {
		t.Fatalf("new version: %v", v2)
	}
	var vs []map[string]any
	a.Do(t, "GET", f.path("/files/%d/versions", num(v1)), nil).Expect(t, 200).Into(t, &vs)
	if len(vs) != 2 || vs[0]["versionNumber"] != float64(2) || vs[0]["isCurrent"] != true || vs[1]["file_size"] != float64(11) {
		t.Fatalf("versions: %v", vs)
	}
	a.Do(t, "PATCH", f.path("/files/%d", num(v1)), map[string]any{"fieldValues": map[string]any{fid: "final"}}).Expect(t, 200)
	restored := a.Do(t, "POST", f.path("/files/%d/versions/%s/restore", num(v1), vs[1]["id"]), nil).Expect(t, 200).Map(t)
	if restored["field_values"].(map[string]any)[fid] != "final" || restored["file_size"] != float64(11) {
		t.Fatalf("restored: %v", restored)
	}
	if _, body := f.get(t, a, num(v1), nil); string(body) != "version one" {
		t.Fatalf("restored content %q", body)
	}
	a.Do(t, "GET", f.path("/files/%d/versions", num(v1)), nil).Expect(t, 200).Into(t, &vs)
	if len(vs) != 3 || vs[0]["isCurrent"] != true || vs[0]["versionNumber"] != float64(3) {
		t.Fatalf("versions after restore: %v", vs)
	}
	a.Do(t, "POST", f.path("/files/%d/versions/%s/restore", num(v1), "00000000-0000-0000-0000-000000000001"), nil).Expect(t, 404, "NOT_FOUND")
	// a folder's name cannot be uploaded over
	f.folder(t, a, nil, "reports")
	f.upload(t, a, "", "reports", "", []byte("x")).Expect(t, 409, "CONFLICT")
}

func testLibraryFields(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "flds")
	a := f.admin
	req := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Owner", "internalName": "owner", "fieldType": "text", "isRequired": true}).Expect(t, 201).Map(t)["id"].(string)
	tags := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Tags", "fieldType": "choice",
		"settings": map[string]any{"choices": []string{"red", "green", "blue"}, "allowMultiple": true}}).Expect(t, 201).Map(t)["id"].(string)
	a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Bad", "fieldType": "colour"}).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Dup", "internalName": "owner", "fieldType": "text"}).Expect(t, 409, "CONFLICT")
	lib := a.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 200).Map(t)
	if len(lib["fields"].([]any)) != 2 {
		t.Fatalf("fields: %v", lib["fields"])
	}
	// upload and folders do not check required fields
	file := f.put(t, a, "", "a.txt", []byte("a"), 201)
	f.folder(t, a, nil, "folder")
	// PATCH with values merges, then checks required fields
	a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{tags: []string{"red"}}}).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{tags: []string{"pink"}, "owner": "me"}}).Expect(t, 400, "VALIDATION_ERROR")
	a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{"nope": 1}}).Expect(t, 400, "VALIDATION_ERROR")
	got := a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{tags: []string{"red", "blue"}, "owner": "me"}}).Expect(t, 200).Map(t)
	if !reflect.DeepEqual(got["field_values"], map[string]any{req: "me", tags: []any{"red", "blue"}}) {
		t.Fatalf("values: %v", got["field_values"])
	}
	// name alone checks nothing, even with a required value removed meanwhile
	a.Do(t, "PATCH", f.path("/fields/%s", req), map[string]any{"isRequired": true}).Expect(t, 200)
	a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"name": "b.txt"}).Expect(t, 200)
	// tightening normalises stored values
	a.Do(t, "PATCH", f.path("/fields/%s", tags), map[string]any{"settings": map[string]any{"choices": []string{"blue", "green"}, "allowMultiple": false}}).Expect(t, 200)
	got = a.Do(t, "GET", f.path("/files/%d", num(file)), nil).Expect(t, 200).Map(t)
	if got["field_values"].(map[string]any)[tags] != "blue" {
		t.Fatalf("after tightening: %v", got["field_values"])
	}
	a.Do(t, "DELETE", f.path("/fields/%s", tags), nil).Expect(t, 200)
	got = a.Do(t, "GET", f.path("/files/%d", num(file)), nil).Expect(t, 200).Map(t)
	if _, ok := got["field_values"].(map[string]any)[tags]; ok {
		t.Fatalf("deleted field still shown: %v", got["field_values"])
	}
	// person values name existing users
	u, uid := s.CreateUser(t, "fieldeditor", false)
	owner := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Reviewer", "fieldType": "person", "settings": map[string]any{"allowMultiple": false}}).Expect(t, 201).Map(t)["id"].(string)
	got = a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{owner: map[string]any{"principalType": "user", "id": uid}, "owner": "me"}}).Expect(t, 200).Map(t)
	if p, _ := got["field_values"].(map[string]any)[owner].(map[string]any); p["id"] != uid || p["display"] != "Fieldeditor" {
		t.Fatalf("person value: %v", got["field_values"])
	}
	a.Do(t, "PATCH", f.path("/files/%d", num(file)), map[string]any{"fieldValues": map[string]any{owner: map[string]any{"principalType": "user", "id": "00000000-0000-0000-0000-000000000009"}}}).Expect(t, 400, "VALIDATION_ERROR")
	// only administrators change the schema
	grantLib(t, a, "library", f.libID, uid, "edit", nil)
	u.Do(t, "POST", f.path("/fields"), map[string]any{"title": "X", "fieldType": "text"}).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", f.path("/fields"), nil).Expect(t, 200)
}

func testLibraryRecycle(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "bin")
	a := f.admin
	fid := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Note", "fieldType": "text"}).Expect(t, 201).Map(t)["id"].(string)
	dir := f.folder(t, a, nil, "dir")
	inner := f.put(t, a, dir["guid"].(string), "inner.txt", []byte("inner"), 201)
	a.Do(t, "PATCH", f.path("/files/%d", num(inner)), map[string]any{"fieldValues": map[string]any{fid: "keep me"}}).Expect(t, 200)
	lone := f.put(t, a, "", "lone.txt", []byte("lone"), 201)

	a.Do(t, "DELETE", f.path("/files/%d", num(dir)), nil).Expect(t, 200)
	a.Do(t, "GET", f.path("/files/%d", num(inner)), nil).Expect(t, 404, "NOT_FOUND")
	if got := f.names(t, a, ""); !reflect.DeepEqual(got, []string{"lone.txt"}) {
		t.Fatalf("after delete: %v", got)
	}
	entries := binEntries(t, a, f.nodeID)
	if len(entries) != 1 || entries[0]["kind"] != "file" || entries[0]["title"] != "dir" {
		t.Fatalf("bin: %v", entries)
	}
	a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string)+"/restore", nil).Expect(t, 200)
	got := a.Do(t, "GET", f.path("/files/%d", num(inner)), nil).Expect(t, 200).Map(t)
	if got["field_values"].(map[string]any)[fid] != "keep me" || got["parentId"] != dir["id"] {
		t.Fatalf("restored: %v", got)
	}

	// purge deletes the blobs of every version
	f.put(t, a, "", "lone.txt", []byte("lone v2"), 200)
	before := blobCount(t, s)
	a.Do(t, "DELETE", f.path("/files/%d", num(lone)), nil).Expect(t, 200)
	entries = binEntries(t, a, f.nodeID)
	a.Do(t, "DELETE", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string), nil).Expect(t, 200)
	if after := blobCount(t, s); after != before-2 {
		t.Fatalf("blobs %d -> %d after purge", before, after)
	}

	// a library goes to the bin with its files, fields and values, and comes back
	a.Do(t, "DELETE", "/libraries/"+f.libID, nil).Expect(t, 200)
	a.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 404, "NOT_FOUND")
	a.Do(t, "GET", f.path("/files/%d", num(inner)), nil).Expect(t, 404, "NOT_FOUND")
	entries = binEntries(t, a, f.nodeID)
	if len(entries) != 1 || entries[0]["kind"] != "library" {
		t.Fatalf("bin after library delete: %v", entries)
	}
	a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string)+"/restore", nil).Expect(t, 200)
	got = a.Do(t, "GET", f.path("/files/%d", num(inner)), nil).Expect(t, 200).Map(t)
	lib := a.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 200).Map(t)
	if got["field_values"].(map[string]any)[fid] != "keep me" || len(lib["fields"].([]any)) != 1 {
		t.Fatalf("library restore: %v %v", got, lib)
	}
	// purging a library removes every blob
	before = blobCount(t, s)
	a.Do(t, "DELETE", "/libraries/"+f.libID, nil).Expect(t, 200)
	entries = binEntries(t, a, f.nodeID)
	a.Do(t, "DELETE", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string), nil).Expect(t, 200)
	if after := blobCount(t, s); after != before-1 {
		t.Fatalf("blobs %d -> %d after library purge", before, after)
	}
}

func binEntries(t *testing.T, c *kit.Client, nodeID string) []map[string]any {
	var es []map[string]any
	c.Do(t, "GET", "/nodes/"+nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &es)
	return es
}

// starName decodes the filename* parameter of a Content-Disposition header.
func starName(cd string) string {
	_, enc, ok := strings.Cut(cd, "filename*=UTF-8''")
	if !ok {
		return ""
	}
	name, err := url.PathUnescape(enc)
	if err != nil {
		return ""
	}
	return name
}
