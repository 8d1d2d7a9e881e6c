package test

import (
	"strings"
	"testing"

	"coreportal/test/kit"
)

// TestLibrariesExport: a folder exports its entries with path, size, dates
// and custom fields, as the listing shows them to the caller.
func TestLibrariesExport(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		lib := newLibFixture(t, s, "libexp")
		a := lib.admin
		fid := a.Do(t, "POST", lib.path("/fields"), map[string]any{"title": "Owner note", "fieldType": "text"}).Expect(t, 201).Map(t)["id"].(string)
		docs := lib.folder(t, a, nil, "Docs")
		lib.put(t, a, "", "=cmd.txt", []byte("abc"), 201)
		b := lib.put(t, a, docs["guid"].(string), "b.txt", []byte("hello"), 201)
		a.Do(t, "PATCH", lib.path("/files/%d", num(b)), map[string]any{"fieldValues": map[string]any{fid: "+note"}}).Expect(t, 200)

		r := fileAnswer{a.Do(t, "GET", lib.path("/files/export?format=csv"), nil)}.File(t)
		recs := readCSV(t, r.Raw)
		if strings.Join(recs[0], "|") != "Name|Path|Type|Size|Modified|Created|Owner note" || len(recs) != 3 ||
			recs[1][0] != "Docs" || recs[1][2] != "folder" || recs[2][0] != "'=cmd.txt" || recs[2][1] != "'/=cmd.txt" && recs[2][1] != "/=cmd.txt" || recs[2][3] != "3" {
			t.Fatalf("root export %q", recs)
		}
		r = fileAnswer{a.Do(t, "GET", lib.path("/files/export?format=xlsx&parentId=%d", num(docs)), nil)}.File(t)
		x := openXLSX(t, r.Raw)
		sh := x.GetSheetList()[0]
		rows, _ := x.GetRows(sh)
		if len(rows) != 2 || rows[1][0] != "b.txt" || rows[1][1] != "/Docs/b.txt" || rows[1][3] != "5" || rows[1][6] != "'+note" {
			t.Fatalf("folder export %q", rows)
		}
		stranger, _ := s.CreateUser(t, "libexpstranger", false)
		stranger.Do(t, "GET", lib.path("/files/export"), nil).Expect(t, 403, "FORBIDDEN")
		a.Do(t, "GET", lib.path("/files/export?format=pdf"), nil).Expect(t, 400, "VALIDATION_ERROR")
	})
}
