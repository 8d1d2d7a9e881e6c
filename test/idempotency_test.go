package test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

func postKeyed(t *testing.T, c *kit.Client, path, key string, body any) *kit.Response {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", c.S.URL+"/api/v1"+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	return c.Send(t, req)
}

func uploadKeyed(t *testing.T, c *kit.Client, path, key string, content []byte) *kit.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.SetBoundary("fixed-boundary-for-retries")
	fw, _ := mw.CreateFormFile("file", "retry.bin")
	_, _ = fw.Write(content)
	_ = mw.Close()
	req, _ := http.NewRequest("POST", c.S.URL+"/api/v1"+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Idempotency-Key", key)
	return c.Send(t, req)
}

// TestIdempotentCreates: a create retried with the same Idempotency-Key and
// body answers the first answer again without a second create; another body
// is 409; uploads and list creates behave alike; the header is documented on
// the creating operations.
func TestIdempotentCreates(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		a := s.Admin(t)
		f := newListFixture(t, s, "idem")
		body := map[string]any{"fieldValues": map[string]any{"title": "once"}}
		first := postKeyed(t, a, f.path("/items"), "item-key-1", body).Expect(t, 201)
		again := postKeyed(t, a, f.path("/items"), "item-key-1", body).Expect(t, 201)
		if !bytes.Equal(first.Raw, again.Raw) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry answered %s, first %s", again.Raw, first.Raw)
		}
		postKeyed(t, a, f.path("/items"), "item-key-1", map[string]any{"fieldValues": map[string]any{"title": "other"}}).Expect(t, 409, "CONFLICT")
		items, _ := f.list(t, a, nil)
		if len(items) != 1 {
			t.Fatalf("%d items after a retried create", len(items))
		}
		// another user's same key is another request
		u, _ := s.CreateUser(t, "idemuser", true)
		postKeyed(t, u, f.path("/items"), "item-key-1", body).Expect(t, 201)
		if items, _ = f.list(t, a, nil); len(items) != 2 {
			t.Fatalf("%d items, want 2", len(items))
		}

		// an upload retried with its key stores one attachment
		content := bytes.Repeat([]byte("retry me "), 2000)
		up := uploadKeyed(t, a, f.path("/items/1/attachments"), "upload-key", content).Expect(t, 201)
		up2 := uploadKeyed(t, a, f.path("/items/1/attachments"), "upload-key", content).Expect(t, 201)
		if !bytes.Equal(up.Raw, up2.Raw) {
			t.Fatalf("upload retry %s vs %s", up2.Raw, up.Raw)
		}
		uploadKeyed(t, a, f.path("/items/1/attachments"), "upload-key", append(content, 'x')).Expect(t, 409, "CONFLICT")
		atts := a.Do(t, "GET", f.path("/items/1/attachments"), nil).Expect(t, 200)
		if n := strings.Count(string(atts.Raw), `"fileName"`) + strings.Count(string(atts.Raw), `"name"`); n == 0 || strings.Count(string(atts.Raw), "retry.bin") != 1 {
			t.Fatalf("attachments after a retried upload: %s", atts.Raw)
		}

		// a list create retried answers the same list
		l1 := postKeyed(t, a, "/lists", "list-key", map[string]any{"nodeId": f.nodeID, "title": "Idem list", "slug": "idem-list"}).Expect(t, 201)
		l2 := postKeyed(t, a, "/lists", "list-key", map[string]any{"nodeId": f.nodeID, "title": "Idem list", "slug": "idem-list"}).Expect(t, 201)
		if !bytes.Equal(l1.Raw, l2.Raw) {
			t.Fatalf("list retry %s vs %s", l2.Raw, l1.Raw)
		}

		// the reference documents the header on the creating operations
		doc := s.Anon().Do(t, "GET", "/openapi.json", nil)
		if doc.Status != 200 {
			t.Fatalf("openapi.json: %d", doc.Status)
		}
		var spec struct {
			Components struct {
				Parameters map[string]struct{ Name, In string }
			}
			Paths map[string]map[string]struct {
				Parameters []struct {
					Ref string `json:"$ref"`
				}
			}
		}
		if err := json.Unmarshal(doc.Raw, &spec); err != nil {
			t.Fatal(err)
		}
		if p := spec.Components.Parameters["IdempotencyKey"]; p.Name != "Idempotency-Key" || p.In != "header" {
			t.Fatalf("components.parameters.IdempotencyKey: %+v", p)
		}
		for _, path := range []string{"/lists/{listId}/items", "/lists/{listId}/items/quick-edit", "/lists/{listId}/items/{itemId}/attachments",
			"/libraries/{libraryId}/files", "/nodes", "/lists", "/libraries", "/pages", "/surveys", "/groups", "/admin/users"} {
			ok := false
			for _, p := range spec.Paths["/api/v1"+path]["post"].Parameters {
				ok = ok || p.Ref == "#/components/parameters/IdempotencyKey"
			}
			if !ok {
				t.Errorf("POST %s does not document Idempotency-Key", path)
			}
		}
	})
}
