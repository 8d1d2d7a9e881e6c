package test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// libFixture is a node with one library, created by the administrator.
type libFixture struct {
	s      *kit.Server
	admin  *kit.Client
	nodeID string
	libID  string
}

func newLibFixture(t *testing.T, s *kit.Server, slug string) *libFixture {
	t.Helper()
	admin := s.Admin(t)
	node := admin.Do(t, "POST", "/nodes", map[string]any{"slug": slug + "-node", "title": "Node " + slug}).Expect(t, 201).Map(t)
	lib := admin.Do(t, "POST", "/libraries", map[string]any{"nodeId": node["id"], "title": "Library " + slug, "slug": slug}).Expect(t, 201).Map(t)
	return &libFixture{s: s, admin: admin, nodeID: node["id"].(string), libID: lib["id"].(string)}
}

func (f *libFixture) path(format string, args ...any) string {
	return "/libraries/" + f.libID + fmt.Sprintf(format, args...)
}

// upload sends one file part with a chosen part Content-Type ("" = none) and parentId ("" = root).
func (f *libFixture) upload(t *testing.T, c *kit.Client, parentID, name, contentType string, content []byte) *kit.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if parentID != "" {
		_ = mw.WriteField("parentId", parentID)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="%s"`, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name)))
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(content)
	_ = mw.Close()
	req, err := http.NewRequest("POST", c.S.URL+"/api/v1"+f.path("/files"), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Send(t, req)
}

// put uploads and expects status, returning the record.
func (f *libFixture) put(t *testing.T, c *kit.Client, parentID, name string, content []byte, status int) map[string]any {
	t.Helper()
	return f.upload(t, c, parentID, name, "", content).Expect(t, status).Map(t)
}

func (f *libFixture) folder(t *testing.T, c *kit.Client, parentID any, name string) map[string]any {
	t.Helper()
	body := map[string]any{"name": name}
	if parentID != nil {
		body["parentId"] = parentID
	}
	return c.Do(t, "POST", f.path("/folders"), body).Expect(t, 201).Map(t)
}

// get downloads a file with extra request headers.
func (f *libFixture) get(t *testing.T, c *kit.Client, ref any, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", c.S.URL+"/api/v1"+f.path("/files/%v/download", ref), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.S.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// names lists the names of a folder's children as the caller sees them.
func (f *libFixture) names(t *testing.T, c *kit.Client, query string) []string {
	t.Helper()
	var files []map[string]any
	c.Do(t, "GET", f.path("/files?%s", query), nil).Expect(t, 200).Into(t, &files)
	out := []string{}
	for _, x := range files {
		out = append(out, x["name"].(string))
	}
	return out
}

func num(m map[string]any) int64 { return int64(m["id"].(float64)) }

// grantLib gives principal a level on a resource through /permissions.
func grantLib(t *testing.T, admin *kit.Client, resourceType, resourceID, principalID, level string, extra map[string]any) {
	t.Helper()
	body := map[string]any{"resourceType": resourceType, "resourceId": resourceID, "principalType": "user", "principalId": principalID, "permissionLevel": level}
	for k, v := range extra {
		body[k] = v
	}
	r := admin.Do(t, "POST", "/permissions", body)
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("grant: %d %s", r.Status, r.Raw)
	}
}

// uploadRaw sends a file part with a hand-written Content-Disposition (RFC 2231 names).
func (f *libFixture) uploadRaw(t *testing.T, c *kit.Client, disposition string, content []byte) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", disposition)
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(content)
	_ = mw.Close()
	req, err := http.NewRequest("POST", c.S.URL+"/api/v1"+f.path("/files"), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Send(t, req).Expect(t, 201).Map(t)
}
