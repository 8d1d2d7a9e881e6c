package test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

func listGrant(t *testing.T, a *kit.Client, typ, id, principal, level string, extra ...map[string]any) {
	t.Helper()
	body := map[string]any{"resourceType": typ, "resourceId": id, "principalType": "user", "principalId": principal, "permissionLevel": level}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	r := a.Do(t, "POST", "/permissions", body)
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("grant: %d %s", r.Status, r.Raw)
	}
}

func TestListsAccessPickersAttachments(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "acc")
		a := f.admin
		secret := newListFixture(t, s, "secret")
		secret.create(t, a, map[string]any{"title": "Hidden target"})
		viewer, vid := s.CreateUser(t, "vera", false)
		adder, aid := s.CreateUser(t, "adam", false)
		stranger, _ := s.CreateUser(t, "stan", false)
		listGrant(t, a, "list", f.listID, vid, "view")
		listGrant(t, a, "list", f.listID, aid, "add")
		for i := 1; i <= 4; i++ {
			f.create(t, a, map[string]any{"title": "item" + string(rune('0'+i))})
		}

		t.Run("rights", func(t *testing.T) {
			// existing resources the caller lacks the right on: 403; missing ones: 404
			stranger.Do(t, "GET", f.path(""), nil).Expect(t, 403, "FORBIDDEN")
			stranger.Do(t, "GET", f.path("/items"), nil).Expect(t, 403, "FORBIDDEN")
			stranger.Do(t, "GET", "/lists?nodeId="+f.nodeID, nil).Expect(t, 403, "FORBIDDEN")
			stranger.Do(t, "GET", "/lists/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
			stranger.Do(t, "GET", "/lists?nodeId="+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
			var ls []map[string]any
			viewer.Do(t, "GET", "/lists?nodeId="+f.nodeID, nil)
			viewer.Do(t, "GET", f.path(""), nil).Expect(t, 200)
			viewer.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "x"}}).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": "x"}}).Expect(t, 403)
			viewer.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 403)
			viewer.Do(t, "POST", f.path("/fields"), map[string]any{"title": "x", "fieldType": "text"}).Expect(t, 403)
			viewer.Do(t, "DELETE", f.path(""), nil).Expect(t, 403)
			// delete on the list alone is not enough: deleting a list needs delete on its node
			listGrant(t, a, "list", f.listID, aid, "delete")
			adder.Do(t, "DELETE", f.path(""), nil).Expect(t, 403)
			adder.Do(t, "POST", f.path("/recycle-content"), nil).Expect(t, 403)
			adder.Do(t, "DELETE", f.path("/items/1"), nil).Expect(t, 200)
			var bin []map[string]any
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+bin[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			listGrant(t, a, "list", f.listID, aid, "add")
			it := viewer.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200).Map(t)
			if p := it["permissions"].(map[string]any); p["canEdit"] != false || p["canDelete"] != false || p["canManagePermissions"] != false {
				t.Fatalf("viewer flags %v", p)
			}
			created := adder.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": map[string]any{"title": "by adam"}}).Expect(t, 201).Map(t)
			adder.Do(t, "PATCH", f.pathf("/items/%v", created["id"]), map[string]any{"fieldValues": map[string]any{"title": "x"}}).Expect(t, 403)
			viewer.Do(t, "PATCH", f.path("/items/1/permission-settings"), map[string]any{"inheritFromParent": false}).Expect(t, 403)
			_ = ls
		})

		t.Run("hidden items are neither listed nor counted", func(t *testing.T) {
			// isolate item 2 and give vera nothing on it; give stan view on item 3 only
			f.isolate(t, 2, vid)
			items, meta := f.list(t, viewer, map[string]string{"sort": "item_number:asc"})
			if got := f.titles(items); strings.Join(got, ",") != "item1,item3,item4,by adam" || meta["total"] != 4.0 || meta["totalInView"] != 4.0 {
				t.Fatalf("viewer sees %v %v", got, meta)
			}
			viewer.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "GET", f.path("/items/999"), nil).Expect(t, 404, "NOT_FOUND")
			me := stranger.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
			stanID := me["id"].(string)
			listGrant(t, a, "list_item", "3", stanID, "view", map[string]any{"listId": f.listID})
			_, meta = f.list(t, a, nil)
			if meta["total"] != 5.0 {
				t.Fatalf("admin total %v", meta)
			}
			stranger.Do(t, "GET", f.path("/items/3"), nil).Expect(t, 200)
			stranger.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 403, "FORBIDDEN")
			stranger.Do(t, "GET", f.path("/items/999"), nil).Expect(t, 403, "FORBIDDEN") // cannot open the list
			// the item number may also be a JSON number; fractions, zero and junk are 400
			a.Do(t, "POST", "/permissions", map[string]any{"resourceType": "list_item", "resourceId": 2, "listId": f.listID,
				"principalType": "user", "principalId": stanID, "permissionLevel": "view"}).Expect(t, 200)
			stranger.Do(t, "GET", f.path("/items/2"), nil).Expect(t, 200)
			for _, bad := range []any{1.5, 0, -2, true, 1e30} {
				a.Do(t, "POST", "/permissions", map[string]any{"resourceType": "list_item", "resourceId": bad, "listId": f.listID,
					"principalType": "user", "principalId": stanID, "permissionLevel": "view"}).Expect(t, 400, "VALIDATION_ERROR")
			}
			r := viewer.Do(t, "GET", f.path("/items/sync-state?ids=1,2,3,999"), nil).Expect(t, 200).Map(t)
			if got := r["items"].([]any); len(got) != 2 || got[0].(map[string]any)["updated_by_user"].(map[string]any)["display_name"] != "Administrator" {
				t.Fatalf("sync-state %v", got)
			}
			viewer.Do(t, "GET", f.path("/items/sync-state?ids=a,b"), nil).Expect(t, 400)
			ids := strings.Repeat("1,", 101)
			viewer.Do(t, "GET", f.path("/items/sync-state?ids="+ids), nil).Expect(t, 400)
			viewer.Do(t, "GET", f.path("/items/live?ids="+ids), nil).Expect(t, 400)
		})

		t.Run("lookup options", func(t *testing.T) {
			r := viewer.Do(t, "GET", f.path("/lookup-options?targetListId="+secret.listID), nil).Expect(t, 200).Map(t)
			if r["accessDenied"] != true || len(r["options"].([]any)) != 0 || r["message"] == nil {
				t.Fatalf("denied %v", r)
			}
			r = a.Do(t, "GET", f.path("/lookup-options?targetListId="+secret.listID+"&q=HIDD"), nil).Expect(t, 200).Map(t)
			opts := r["options"].([]any)
			if r["accessDenied"] != false || len(opts) != 1 || opts[0].(map[string]any)["display"] != "Hidden target" || opts[0].(map[string]any)["itemId"] != 1.0 {
				t.Fatalf("options %v", r)
			}
			r = viewer.Do(t, "GET", f.path("/lookup-options?targetListId="+f.listID+"&q=item"), nil).Expect(t, 200).Map(t)
			if len(r["options"].([]any)) != 3 {
				t.Fatalf("own list options respect item rights: %v", r)
			}
			a.Do(t, "GET", f.path("/lookup-options"), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path("/lookup-options?targetListId="+secret.listID+"&targetLibraryId="+secret.listID), nil).Expect(t, 400)
		})

		t.Run("person options", func(t *testing.T) {
			a.Do(t, "POST", "/groups", map[string]any{"name": "Adam's team", "description": "builders"}).Expect(t, 201)
			var opts []map[string]any
			viewer.Do(t, "GET", f.path("/person-options?q=ADAM"), nil).Expect(t, 200).Into(t, &opts)
			if len(opts) != 2 || opts[0]["principalType"] != "user" || opts[0]["id"] != aid || opts[1]["principalType"] != "group" {
				t.Fatalf("options %v", opts)
			}
			viewer.Do(t, "GET", f.path("/person-options?q=example.com&excludeIds="+aid), nil).Expect(t, 200).Into(t, &opts)
			for _, o := range opts {
				if o["id"] == aid || o["principalType"] != "user" {
					t.Fatalf("excluded or non-user returned %v", o)
				}
			}
			fid := f.addField(t, "usersonly", "person", map[string]any{"allowGroups": false})
			viewer.Do(t, "GET", f.path("/person-options?q=builders&fieldId="+fid), nil).Expect(t, 200).Into(t, &opts)
			if len(opts) != 0 {
				t.Fatalf("groups offered for a users-only field: %v", opts)
			}
			for i := 0; i < 17; i++ {
				s.CreateUser(t, "many"+string(rune('a'+i)), false)
			}
			viewer.Do(t, "GET", f.path("/person-options?q=many"), nil).Expect(t, 200).Into(t, &opts)
			if len(opts) != 15 {
				t.Fatalf("limit: %d", len(opts))
			}
		})

		t.Run("attachments", func(t *testing.T) {
			content := []byte("hello attachment")
			r := a.Upload(t, "POST", f.path("/items/1/attachments"), "file", `../evil "name".txt`, content, nil).Expect(t, 201).Map(t)
			// the last path element is kept as it is (quotes too): the download header escapes it
			if r["fileName"] != `evil "name".txt` || r["size"] != float64(len(content)) {
				t.Fatalf("uploaded %v", r)
			}
			id := r["id"].(string)
			var list []map[string]any
			viewer.Do(t, "GET", f.path("/items/1/attachments"), nil).Expect(t, 200).Into(t, &list)
			if len(list) != 1 || list[0]["id"] != id {
				t.Fatalf("list %v", list)
			}
			d := viewer.Do(t, "GET", "/attachments/"+id+"/download", nil)
			if d.Status != 200 || !bytes.Equal(d.Raw, content) || d.Header.Get("Content-Disposition") != `attachment; filename="evil _name_.txt"; filename*=UTF-8''evil%20%22name%22.txt` || d.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("download %d %q %v", d.Status, d.Raw, d.Header)
			}
			stranger.Do(t, "GET", "/attachments/"+id+"/download", nil).Expect(t, 403, "FORBIDDEN")
			stranger.Do(t, "GET", "/attachments/"+uuid.NewString()+"/download", nil).Expect(t, 404, "NOT_FOUND")
			// malformed ids are 400 (CONTRACT), unknown ones 404
			stranger.Do(t, "GET", "/attachments/abc/download", nil).Expect(t, 400, "VALIDATION_ERROR")
			stranger.Do(t, "GET", "/lists/abc/items", nil).Expect(t, 400, "VALIDATION_ERROR")
			stranger.Do(t, "GET", "/lists/abc/items/1/attachments", nil).Expect(t, 400, "VALIDATION_ERROR")
			stranger.Do(t, "GET", "/lists/"+uuid.NewString()+"/items", nil).Expect(t, 404, "NOT_FOUND")
			viewer.Upload(t, "POST", f.path("/items/1/attachments"), "file", "x.txt", content, nil).Expect(t, 403)
			viewer.Do(t, "DELETE", f.path("/items/1/attachments/"+id), nil).Expect(t, 403)
			a.Upload(t, "POST", f.path("/items/1/attachments"), "other", "x.txt", content, nil).Expect(t, 400)
			a.Do(t, "DELETE", f.path("/items/1/attachments/"+id), nil).Expect(t, 200)
			a.Do(t, "GET", "/attachments/"+id+"/download", nil).Expect(t, 404)
		})

		t.Run("list delete, restore and recycle content", func(t *testing.T) {
			a.Do(t, "DELETE", f.path("/items/4"), nil).Expect(t, 200)
			a.Do(t, "DELETE", f.path(""), nil).Expect(t, 200)
			a.Do(t, "GET", f.path(""), nil).Expect(t, 404)
			var entries []map[string]any
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &entries)
			if len(entries) != 1 || entries[0]["kind"] != "list" {
				t.Fatalf("bin after list delete (binned items purged): %v", entries)
			}
			a.Do(t, "POST", "/nodes/"+f.nodeID+"/recycle-bin/"+entries[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			_, meta := f.list(t, a, nil)
			if meta["total"] != 4.0 {
				t.Fatalf("restored list content %v", meta)
			}
			r := a.Do(t, "POST", f.path("/recycle-content"), nil).Expect(t, 200).Map(t)
			if r["moved"] != 4.0 {
				t.Fatalf("moved %v", r)
			}
			_, meta = f.list(t, a, nil)
			a.Do(t, "GET", "/nodes/"+f.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &entries)
			if meta["total"] != 0.0 || len(entries) != 4 {
				t.Fatalf("after recycle-content: %v, %d entries", meta, len(entries))
			}
		})
	})
}
