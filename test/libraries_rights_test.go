package test

import (
	"fmt"
	"reflect"
	"testing"

	"coreportal/test/kit"
)

func testLibraryRights(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "acl")
	a := f.admin
	u, uid := s.CreateUser(t, "libreader", false)
	drop := f.folder(t, a, nil, "drop")
	secret := f.folder(t, a, nil, "secret")
	hidden := f.put(t, a, secret["guid"].(string), "hidden.txt", []byte("hidden"), 201)
	other := f.put(t, a, secret["guid"].(string), "other.txt", []byte("other"), 201)
	open := f.put(t, a, "", "open.txt", []byte("open"), 201)
	missing := "00000000-0000-0000-0000-000000000001"

	// no right at all: 403 for what exists, 404 for what does not
	u.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", "/libraries/"+missing, nil).Expect(t, 404, "NOT_FOUND")
	u.Do(t, "GET", "/libraries?nodeId="+f.nodeID, nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", f.path("/files/%d", num(open)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", f.path("/files/9999"), nil).Expect(t, 404, "NOT_FOUND")
	if resp, _ := f.get(t, u, num(open), nil); resp.StatusCode != 403 {
		t.Fatalf("download without right: %d", resp.StatusCode)
	}

	// view on the library: read, no upload
	grantLib(t, a, "library", f.libID, uid, "view", nil)
	u.Do(t, "GET", "/libraries/"+f.libID, nil).Expect(t, 200)
	if _, body := f.get(t, u, num(open), nil); string(body) != "open" {
		t.Fatalf("download with view: %q", body)
	}
	f.upload(t, u, "", "mine.txt", "", []byte("x")).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "POST", f.path("/folders"), map[string]any{"name": "mine"}).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "PATCH", f.path("/files/%d", num(open)), map[string]any{"name": "x.txt"}).Expect(t, 403, "FORBIDDEN")

	// add on a folder: upload there, not at the root
	grantLib(t, a, "file", fmt.Sprint(num(drop)), uid, "add", map[string]any{"libraryId": f.libID})
	f.upload(t, u, drop["guid"].(string), "mine.txt", "", []byte("x")).Expect(t, 201)
	f.upload(t, u, "", "mine.txt", "", []byte("x")).Expect(t, 403, "FORBIDDEN")
	// a new version of someone else's file needs edit on it
	f.upload(t, u, drop["guid"].(string), "mine.txt", "", []byte("y")).Expect(t, 403, "FORBIDDEN")

	// isolated folder: a boundary for everything below it
	a.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(secret)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	var recs []map[string]any
	a.Do(t, "GET", "/permissions?resourceType=file&resourceId="+secret["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
	for _, r := range recs {
		if r["principalId"] == uid {
			a.Do(t, "DELETE", "/permissions/"+r["id"].(string), nil).Expect(t, 200)
		}
	}
	grantLib(t, a, "library", f.libID, uid, "edit", nil)
	u.Do(t, "GET", f.path("/files/%d", num(secret)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", f.path("/files/%d", num(hidden)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "GET", f.path("/files?parentId=%d", num(secret)), nil).Expect(t, 403, "FORBIDDEN")
	if got := f.names(t, u, ""); !reflect.DeepEqual(got, []string{"drop", "open.txt"}) {
		t.Fatalf("root seen by user: %v", got)
	}
	settings := a.Do(t, "GET", f.path("/files/%d/permission-settings", num(secret)), nil).Expect(t, 200).Map(t)
	if settings["inheritsPermissions"] != false {
		t.Fatalf("settings: %v", settings)
	}
	if rec := a.Do(t, "GET", f.path("/files/%d", num(secret)), nil).Expect(t, 200).Map(t); rec["inherits_permissions"] != false {
		t.Fatalf("record flag: %v", rec)
	}
	u.Do(t, "GET", f.path("/files/%d/permission-settings", num(secret)), nil).Expect(t, 403, "FORBIDDEN")
	u.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(open)), map[string]any{"inheritFromParent": false}).Expect(t, 403, "FORBIDDEN")

	// a record on one file by number + libraryId opens that file only
	grantLib(t, a, "file", fmt.Sprint(num(hidden)), uid, "view", map[string]any{"libraryId": f.libID})
	u.Do(t, "GET", f.path("/files/%d", num(hidden)), nil).Expect(t, 200)
	u.Do(t, "GET", f.path("/files/%d", num(other)), nil).Expect(t, 403, "FORBIDDEN")
	chk := u.Do(t, "GET", fmt.Sprintf("/permissions/check?resourceType=file&resourceId=%d&libraryId=%s", num(hidden), f.libID), nil).Expect(t, 200).Map(t)
	if chk["canView"] != true || chk["canEdit"] != false {
		t.Fatalf("check: %v", chk)
	}
	a.Do(t, "GET", "/permissions?resourceType=file&resourceId=1&", nil).Expect(t, 400, "VALIDATION_ERROR")

	// edit inherited from the library: rename, not delete
	u.Do(t, "PATCH", f.path("/files/%d", num(open)), map[string]any{"name": "renamed.txt"}).Expect(t, 200)
	u.Do(t, "DELETE", f.path("/files/%d", num(open)), nil).Expect(t, 403, "FORBIDDEN")
	// restoring inheritance reopens the folder
	a.Do(t, "PATCH", f.path("/files/%d/permission-settings", num(secret)), map[string]any{"inheritFromParent": true}).Expect(t, 200)
	u.Do(t, "GET", f.path("/files/%d", num(other)), nil).Expect(t, 200)
}
