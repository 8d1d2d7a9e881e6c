package test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestLibraryConsoleHelpers: what the console's library screen relies on:
// a file delete answers its recycle-bin entry (restored exactly), a version's
// bytes download with ?version=, and ?inline=true previews images, PDF and
// plain text inline while HTML stays an attachment.
func TestLibraryConsoleHelpers(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newLibFixture(t, s, "cons")
		a := f.admin
		v1 := f.put(t, a, "", "notes.txt", []byte("version one"), 201)
		f.put(t, a, "", "notes.txt", []byte("version two!"), 200)
		var vs []map[string]any
		a.Do(t, "GET", f.path("/files/%d/versions", num(v1)), nil).Expect(t, 200).Into(t, &vs)
		if len(vs) != 2 || vs[1]["createdByName"] == "" {
			t.Fatalf("versions: %v", vs)
		}
		if resp, body := f.get(t, a, num(v1), nil); string(body) != "version two!" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
			t.Fatalf("current: %q %v", body, resp.Header)
		}
		old, _ := vs[1]["id"].(string)
		if resp, body := getQ(t, f, a, num(v1), "version="+old); resp.StatusCode != 200 || string(body) != "version one" || resp.Header.Get("ETag") != `"`+old+`"` {
			t.Fatalf("version download: %d %q %v", resp.StatusCode, body, resp.Header)
		}
		if resp, _ := getQ(t, f, a, num(v1), "version=nope"); resp.StatusCode != 400 {
			t.Fatalf("bad version id: %d", resp.StatusCode)
		}
		if resp, _ := getQ(t, f, a, num(v1), "version=00000000-0000-0000-0000-000000000001"); resp.StatusCode != 404 {
			t.Fatalf("unknown version: %d", resp.StatusCode)
		}
		resp, _ := getQ(t, f, a, num(v1), "inline=true")
		if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline;") || resp.Header.Get("Content-Security-Policy") != "sandbox" {
			t.Fatalf("inline text: %v", resp.Header)
		}
		page := f.upload(t, a, "", "page.html", "text/html", []byte("<html><body>hi</body></html>")).Expect(t, 201).Map(t)
		if resp, _ := getQ(t, f, a, num(page), "inline=true"); !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
			t.Fatalf("html inline: %v", resp.Header)
		}
		// delete answers the bin entry; restoring it brings the file back
		folder := f.folder(t, a, nil, "drafts")
		del := a.Do(t, "DELETE", f.path("/files/%d", num(folder)), nil).Expect(t, 200).Map(t)
		entry, _ := del["recycleBinEntryId"].(string)
		if entry == "" {
			t.Fatalf("delete answer: %v", del)
		}
		a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+entry+"/restore", nil).Expect(t, 200)
		if names := f.names(t, a, ""); !contains(names, "drafts") {
			t.Fatalf("after restore: %v", names)
		}
	}, "CORE_MAX_UPLOAD_MB=1")
}

// getQ downloads a file with a query string.
func getQ(t *testing.T, f *libFixture, c *kit.Client, ref int64, query string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", c.S.URL+"/api/v1"+f.path("/files/%d/download?%s", ref, query), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.S.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}
