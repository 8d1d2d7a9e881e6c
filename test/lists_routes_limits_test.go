package test

import (
	"bytes"
	"testing"

	"coreportal/test/kit"
)

func TestListsRoutesAndUploadLimit(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "routed")
		a := f.admin
		r := a.Do(t, "GET", "/routes/resolve?path=/routed-node/lists/routed", nil).Expect(t, 200).Map(t)
		if r["listId"] != f.listID && r["resourceId"] != f.listID {
			t.Fatalf("resolve %v", r)
		}
		c := a.Do(t, "GET", "/routes/canonical?type=list&resourceId="+f.listID, nil).Expect(t, 200).Map(t)
		if c["path"] != "/routed-node/lists/routed" {
			t.Fatalf("canonical %v", c)
		}
		f.create(t, a, map[string]any{"title": "with file"})
		big := bytes.Repeat([]byte("x"), 1<<20+10)
		a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "big.bin", big, nil).Expect(t, 413, "PAYLOAD_TOO_LARGE")
		small := a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "ok.bin", big[:1<<20], nil).Expect(t, 201).Map(t)
		if small["size"] != float64(1<<20) {
			t.Fatalf("size %v", small)
		}
		var list []map[string]any
		a.Do(t, "GET", f.path("/items/1/attachments"), nil).Expect(t, 200).Into(t, &list)
		if len(list) != 1 {
			t.Fatalf("oversized upload left a record: %v", list)
		}
	}, "CORE_MAX_UPLOAD_MB=1")
}
