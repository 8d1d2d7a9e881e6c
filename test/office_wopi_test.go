package test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// wopiEdit asks GET .../edit for a file as c; the answer's token and WOPISrc.
func wopiEdit(t *testing.T, c *kit.Client, f *libFixture, file map[string]any) map[string]any {
	t.Helper()
	return c.Do(t, "GET", f.path("/files/%d/edit", num(file)), nil).Expect(t, 200).Map(t)
}

// TestOfficeWOPI covers issue #31 item 3 on both databases with a test
// client playing the document server: discovery, CheckFileInfo for an
// editor and a viewer, GetFile, a locked PutFile that makes a version
// authored by the editor, locks shared with the API's 423, wrong, expired
// and other-file tokens refused, proof keys checked (good, forged, stale),
// PutRelativeFile, and the Office status; a read-only app password opens
// in view mode, and a password reset, a deactivation (even undone) or a
// revoked app password ends the tokens minted before.
func TestOfficeWOPI(t *testing.T) {
	t.Parallel()
	office := kit.NewWOPIServer(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		editor, editorID := s.CreateUser(t, "wopieditor", false)
		viewer, viewerID := s.CreateUser(t, "wopiviewer", false)
		outsider, _ := s.CreateUser(t, "wopioutsider", false)
		f := newLibFixture(t, s, "wopi")
		grantLib(t, admin, "node", f.nodeID, editorID, "edit", nil)
		grantLib(t, admin, "node", f.nodeID, viewerID, "view", nil)
		content := docxOf(`<w:p><w:r><w:t>version one</w:t></w:r></w:p>`, 1)
		doc := f.put(t, admin, "", "report.docx", content, 201)
		other := f.put(t, admin, "", "other.docx", content, 201)
		txt := f.put(t, admin, "", "notes.txt", []byte("x"), 201)
		folder := f.folder(t, admin, nil, "Folder")

		first := wopiEdit(t, editor, f, doc) // expires first (CORE_OFFICE_TOKEN_TTL)
		issued := time.Now()

		t.Run("edit answers the editor address and a token by right", func(t *testing.T) {
			e := wopiEdit(t, editor, f, doc)
			if e["mode"] != "edit" || e["fileType"] != "docx" || !strings.HasPrefix(e["url"].(string), office.URL+"/browser/dist/cool.html?") ||
				!strings.Contains(e["url"].(string), "WOPISrc="+url.QueryEscape(e["wopiSrc"].(string))) {
				t.Fatalf("editor: %v", e)
			}
			if v := wopiEdit(t, viewer, f, doc); v["mode"] != "view" || !strings.Contains(v["url"].(string), "permission=readonly") {
				t.Fatalf("viewer: %v", v)
			}
			outsider.Do(t, "GET", f.path("/files/%d/edit", num(doc)), nil).Expect(t, 403)
			editor.Do(t, "GET", f.path("/files/%d/edit", num(txt)), nil).Expect(t, 400, "VALIDATION_ERROR")
			editor.Do(t, "GET", f.path("/files/%d/edit", num(folder)), nil).Expect(t, 400, "VALIDATION_ERROR")
			editor.Do(t, "GET", f.path("/files/99999/edit"), nil).Expect(t, 404)
		})

		t.Run("CheckFileInfo and GetFile for an editor and a viewer", func(t *testing.T) {
			e, v := wopiEdit(t, editor, f, doc), wopiEdit(t, viewer, f, doc)
			for _, c := range []struct {
				tok, user string
				write     bool
			}{{e["accessToken"].(string), editorID, true}, {v["accessToken"].(string), viewerID, false}} {
				st, _, body := office.Call(t, "GET", e["wopiSrc"].(string), c.tok, nil, nil, kit.ProofGood)
				var info map[string]any
				if st != 200 || json.Unmarshal(body, &info) != nil {
					t.Fatalf("CheckFileInfo %d %s", st, body)
				}
				if info["BaseFileName"] != "report.docx" || info["Size"] != float64(len(content)) || info["UserId"] != c.user ||
					info["UserCanWrite"] != c.write || info["SupportsLocks"] != true {
					t.Errorf("CheckFileInfo %v", info)
				}
				st, _, body = office.Call(t, "GET", e["wopiSrc"].(string)+"/contents", c.tok, nil, nil, kit.ProofGood)
				if st != 200 || !bytes.Equal(body, content) {
					t.Errorf("GetFile %d (%d bytes)", st, len(body))
				}
			}
			// the viewer's token never writes
			st, _, _ := office.Call(t, "POST", e["wopiSrc"].(string)+"/contents", v["accessToken"].(string), map[string]string{"X-WOPI-Override": "PUT"}, []byte("x"), kit.ProofGood)
			if st != 401 {
				t.Errorf("viewer PutFile %d", st)
			}
		})

		t.Run("tokens: wrong, other file, proofs", func(t *testing.T) {
			e, o := wopiEdit(t, editor, f, doc), wopiEdit(t, editor, f, other)
			src, tok := e["wopiSrc"].(string), e["accessToken"].(string)
			cases := []struct {
				name, src, tok string
				proof          kit.Proof
				want           int
			}{
				{"good proof", src, tok, kit.ProofGood, 200},
				{"no proof", src, tok, kit.ProofNone, 200},
				{"forged proof", src, tok, kit.ProofForged, 401},
				{"stale proof", src, tok, kit.ProofStale, 401},
				{"tampered token", src, tok[:len(tok)-2] + "xx", kit.ProofNone, 401},
				{"no token", src, "", kit.ProofNone, 401},
				{"another file's token", src, o["accessToken"].(string), kit.ProofGood, 401},
				{"its own file", o["wopiSrc"].(string), o["accessToken"].(string), kit.ProofGood, 200},
			}
			for _, c := range cases {
				if st, _, body := office.Call(t, "GET", c.src, c.tok, nil, nil, c.proof); st != c.want {
					t.Errorf("%s: %d %s", c.name, st, body)
				}
			}
		})

		t.Run("a locked PutFile makes a version by the editor; the lock is the API's", func(t *testing.T) {
			e := wopiEdit(t, editor, f, doc)
			src, tok := e["wopiSrc"].(string), e["accessToken"].(string)
			call := func(path string, h map[string]string, body []byte) (int, string) {
				st, hd, _ := office.Call(t, "POST", src+path, tok, h, body, kit.ProofGood)
				return st, hd.Get("X-WOPI-Lock")
			}
			if st, _ := call("", map[string]string{"X-WOPI-Override": "LOCK", "X-WOPI-Lock": "L1"}, nil); st != 200 {
				t.Fatalf("lock %d", st)
			}
			if st, id := call("", map[string]string{"X-WOPI-Override": "GET_LOCK"}, nil); st != 200 || id != "L1" {
				t.Errorf("get lock %d %q", st, id)
			}
			if st, id := call("", map[string]string{"X-WOPI-Override": "LOCK", "X-WOPI-Lock": "L2"}, nil); st != 409 || id != "L1" {
				t.Errorf("second lock %d %q", st, id)
			}
			f.upload(t, admin, "", "report.docx", "", []byte("api write")).Expect(t, 423)
			v2 := docxOf(`<w:p><w:r><w:t>version two</w:t></w:r></w:p>`, 1)
			if st, hd, b := office.Call(t, "POST", src+"/contents", tok, map[string]string{"X-WOPI-Override": "PUT", "X-WOPI-Lock": "WRONG"}, v2, kit.ProofGood); st != 409 || hd.Get("X-WOPI-Lock") != "L1" {
				t.Logf("%s", b)
				t.Errorf("PutFile with a wrong lock %d %q %v", st, hd.Get("X-WOPI-Lock"), hd)
			}
			if st, _ := call("/contents", map[string]string{"X-WOPI-Override": "PUT", "X-WOPI-Lock": "L1"}, v2); st != 200 {
				t.Fatalf("PutFile %d", st)
			}
			var versions []map[string]any
			admin.Do(t, "GET", f.path("/files/%d/versions", num(doc)), nil).Expect(t, 200).Into(t, &versions)
			if len(versions) != 2 || versions[0]["created_by"] != editorID || versions[0]["file_size"] != float64(len(v2)) {
				t.Fatalf("versions %v", versions)
			}
			if _, body := f.get(t, viewer, num(doc), nil); !bytes.Equal(body, v2) {
				t.Errorf("download after PutFile differs")
			}
			if st, _ := call("", map[string]string{"X-WOPI-Override": "REFRESH_LOCK", "X-WOPI-Lock": "L1"}, nil); st != 200 {
				t.Errorf("refresh %d", st)
			}
			if st, id := call("", map[string]string{"X-WOPI-Override": "UNLOCK", "X-WOPI-Lock": "L9"}, nil); st != 409 || id != "L1" {
				t.Errorf("unlock with a wrong id %d %q", st, id)
			}
			if st, _ := call("", map[string]string{"X-WOPI-Override": "UNLOCK", "X-WOPI-Lock": "L1"}, nil); st != 200 {
				t.Errorf("unlock %d", st)
			}
			if st, id := call("", map[string]string{"X-WOPI-Override": "GET_LOCK"}, nil); st != 200 || id != "" {
				t.Errorf("get lock after unlock %d %q", st, id)
			}
			f.upload(t, admin, "", "report.docx", "", content).Expect(t, 200)
			// unlocked and not empty: PutFile is refused
			if st, _ := call("/contents", map[string]string{"X-WOPI-Override": "PUT"}, v2); st != 409 {
				t.Errorf("unlocked PutFile %d", st)
			}
		})

		t.Run("PutRelativeFile saves as a new file", func(t *testing.T) {
			e := wopiEdit(t, editor, f, doc)
			src, tok := e["wopiSrc"].(string), e["accessToken"].(string)
			st, _, body := office.Call(t, "POST", src, tok, map[string]string{"X-WOPI-Override": "PUT_RELATIVE", "X-WOPI-SuggestedTarget": ".odt"}, []byte("odt bytes"), kit.ProofGood)
			var out map[string]any
			if st != 200 || json.Unmarshal(body, &out) != nil || out["Name"] != "report.odt" || !strings.Contains(out["Url"].(string), "/wopi/files/") {
				t.Fatalf("PutRelativeFile %d %s", st, body)
			}
			st, _, _ = office.Call(t, "POST", src, tok, map[string]string{"X-WOPI-Override": "PUT_RELATIVE", "X-WOPI-RelativeTarget": "other.docx"}, []byte("x"), kit.ProofGood)
			if st != 409 {
				t.Errorf("PutRelativeFile over an existing name %d", st)
			}
			names := f.names(t, editor, "")
			sort.Strings(names)
			if strings.Join(names, ",") != "Folder,notes.txt,other.docx,report.docx,report.odt" {
				t.Errorf("names %v", names)
			}
		})

		t.Run("credentials: read-only app password views; reset, deactivation and revocation end tokens", func(t *testing.T) {
			cred, credID := s.CreateUser(t, "wopicred", false)
			grantLib(t, admin, "node", f.nodeID, credID, "edit", nil)
			info := func(e map[string]any) int {
				st, _, _ := office.Call(t, "GET", e["wopiSrc"].(string), e["accessToken"].(string), nil, nil, kit.ProofGood)
				return st
			}
			// a read-only app password opens in view mode and its token never writes
			ro := cred.Do(t, "POST", "/auth/app-passwords", map[string]any{"name": "x", "scope": "read-only"}).Expect(t, 201).Map(t)
			roC := &kit.Client{S: s, Token: ro["password"].(string), HTTP: cred.HTTP}
			e := wopiEdit(t, roC, f, other)
			if e["mode"] != "view" {
				t.Fatalf("read-only app password: %v", e)
			}
			src, tok := e["wopiSrc"].(string), e["accessToken"].(string)
			if st, _, _ := office.Call(t, "POST", src, tok, map[string]string{"X-WOPI-Override": "LOCK", "X-WOPI-Lock": "RO"}, nil, kit.ProofGood); st != 409 {
				t.Errorf("read-only Lock %d", st)
			}
			if st, _, _ := office.Call(t, "POST", src+"/contents", tok, map[string]string{"X-WOPI-Override": "PUT"}, []byte("x"), kit.ProofGood); st != 401 {
				t.Errorf("read-only PutFile %d", st)
			}
			if st, _, _ := office.Call(t, "POST", src, tok, map[string]string{"X-WOPI-Override": "PUT_RELATIVE", "X-WOPI-SuggestedTarget": ".odt"}, []byte("x"), kit.ProofGood); st != 401 {
				t.Errorf("read-only PutRelativeFile %d", st)
			}
			// a read-write app password edits until it is revoked
			rw := cred.Do(t, "POST", "/auth/app-passwords", map[string]any{"name": "y", "scope": "read-write"}).Expect(t, 201).Map(t)
			erw := wopiEdit(t, &kit.Client{S: s, Token: rw["password"].(string), HTTP: cred.HTTP}, f, other)
			if erw["mode"] != "edit" || info(erw) != 200 {
				t.Fatalf("read-write app password: %v", erw)
			}
			cred.Do(t, "DELETE", "/auth/app-passwords/"+rw["id"].(string), nil).Expect(t, 200)
			if st := info(erw); st != 401 {
				t.Errorf("token of a revoked app password %d", st)
			}
			// a password reset by an administrator ends the earlier tokens
			es := wopiEdit(t, cred, f, other)
			if es["mode"] != "edit" || info(es) != 200 || info(e) != 200 {
				t.Fatalf("session token: %v", es)
			}
			admin.Do(t, "POST", "/admin/users/"+credID+"/reset-password", map[string]any{"password": "a-Fresh-pass-4711"}).Expect(t, 200)
			if st, st2 := info(es), info(e); st != 401 || st2 != 401 {
				t.Errorf("tokens after a password reset %d %d", st, st2)
			}
			// deactivation ends them too, and reactivation does not bring them back
			e2 := wopiEdit(t, s.Login(t, "wopicred", "a-Fresh-pass-4711"), f, other)
			if info(e2) != 200 {
				t.Fatalf("token after a new sign-in refused")
			}
			admin.Do(t, "PATCH", "/admin/users/"+credID, map[string]any{"isActive": false}).Expect(t, 200)
			if st := info(e2); st != 401 {
				t.Errorf("token of a deactivated user %d", st)
			}
			admin.Do(t, "PATCH", "/admin/users/"+credID, map[string]any{"isActive": true}).Expect(t, 200)
			if st := info(e2); st != 401 {
				t.Errorf("token after reactivation %d", st)
			}
		})

		t.Run("the Office status names the discovery's file types", func(t *testing.T) {
			st := admin.Do(t, "GET", "/admin/office/status", nil).Expect(t, 200).Map(t)
			if st["discovery"] != true || st["proofKey"] != true || len(st["fileTypes"].([]any)) != 3 {
				t.Errorf("status %v", st)
			}
		})

		t.Run("an expired token is refused", func(t *testing.T) {
			time.Sleep(time.Until(issued.Add(61 * time.Second)))
			if st, _, _ := office.Call(t, "GET", first["wopiSrc"].(string), first["accessToken"].(string), nil, nil, kit.ProofGood); st != 401 {
				t.Errorf("expired token %d", st)
			}
		})
	}, "CORE_OFFICE_URL="+office.URL, "CORE_OFFICE_TOKEN_TTL=60s")
}
