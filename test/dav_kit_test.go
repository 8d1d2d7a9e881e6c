package test

import (
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// davUser is a WebDAV client signing in with HTTP Basic.
type davUser struct {
	s          *kit.Server
	login, pwd string
}

// do sends one WebDAV request under /dav and returns status, headers and body.
func (u davUser) do(t *testing.T, method, path string, body io.Reader, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		target = u.s.URL + "/dav" + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if u.login != "" {
		req.SetBasicAuth(u.login, u.pwd)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

func (u davUser) expect(t *testing.T, want int, method, path string, body string, hdr map[string]string) []byte {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	st, _, raw := u.do(t, method, path, rd, hdr)
	if st != want {
		t.Fatalf("%s %s as %s: %d, want %d: %s", method, path, u.login, st, want, raw)
	}
	return raw
}

// names lists the hrefs' last segments of a PROPFIND Depth: 1 (the folder itself left out).
func (u davUser) names(t *testing.T, path string) []string {
	t.Helper()
	raw := u.expect(t, 207, "PROPFIND", path, "", map[string]string{"Depth": "1"})
	var ms struct {
		Responses []struct {
			Href string `xml:"href"`
		} `xml:"response"`
	}
	if err := xml.Unmarshal(raw, &ms); err != nil {
		t.Fatalf("multistatus: %v: %s", err, raw)
	}
	out := []string{}
	for i, r := range ms.Responses {
		if i == 0 {
			continue
		}
		h := strings.TrimSuffix(r.Href, "/")
		out = append(out, h[strings.LastIndex(h, "/")+1:])
	}
	return out
}
