package test

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"coreportal/test/kit"
)

// TestListsImportNewList: CSV files in every encoding and separator, and an
// XLSX with typed cells, become lists whose fields have the proposed types.
func TestListsImportNewList(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		a := s.Admin(t)
		node := a.Do(t, "POST", "/nodes", map[string]any{"slug": "imp-node", "title": "Import node"}).Expect(t, 201).Map(t)
		nodeID := node["id"].(string)
		rows := [][]string{{"Название", "Количество", "Дата", "Готово", "Статус", "Сайт"},
			{"Первый", "1 234,5", "31.01.2024", "да", "Новый", "https://example.com/1"},
			{"Второй", "-2", "01.02.2024", "нет", "Закрыт", "https://example.com/2"},
			{"Третий", "3", "02.02.2024", "да", "Новый", "https://example.com/3"},
			{"Четвёртый", "4", "03.02.2024", "нет", "Закрыт", ""}}
		utf16 := func(s string) []byte {
			b, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
			return b
		}
		cp1251 := func(s string) []byte { b, _ := charmap.Windows1251.NewEncoder().Bytes([]byte(s)); return b }
		cases := []struct {
			name, enc, sep string
			data           []byte
		}{
			{"utf8bom-comma", "utf-8", ",", append([]byte("\uFEFF"), csvOf(rows, ',')...)},
			{"utf8-semicolon", "utf-8", ";", []byte(csvOf(rows, ';'))},
			{"utf16-semicolon", "utf-16le", ";", utf16(csvOf(rows, ';'))},
			{"cp1251-tab", "windows-1251", "\t", cp1251(csvOf(rows, '\t'))},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				pv := uploadPreview(t, a, "/nodes/"+nodeID+"/lists/import/preview", c.name+".csv", c.data)
				file := pv["file"].(map[string]any)
				if file["format"] != "csv" || file["encoding"] != c.enc || file["separator"] != c.sep || pv["rows"] != 4.0 {
					t.Fatalf("file %v rows %v", file, pv["rows"])
				}
				want := map[string]string{"Название": "text", "Количество": "number", "Дата": "date", "Готово": "boolean", "Статус": "choice", "Сайт": "link"}
				for h, typ := range want {
					if col := column(t, pv, h); col["proposedType"] != typ {
						t.Fatalf("%s proposed %v, want %s: %v", h, col["proposedType"], typ, col)
					}
				}
				if column(t, pv, "Название")["asTitle"] != true {
					t.Fatalf("title column not proposed: %v", pv["columns"])
				}
				if s0 := pv["sample"].([]any)[0].([]any); s0[1] != 1234.5 || s0[2] != "2024-01-31" || s0[3] != true {
					t.Fatalf("sample %v", s0)
				}
				slug := "imp-" + string(rune('a'+i))
				st := a.Do(t, "POST", "/nodes/"+nodeID+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": c.name, "slug": slug}).Expect(t, 202).Map(t)
				done := waitImport(t, a, st["listId"].(string), st["id"].(string))
				if done["status"] != "done" || done["created"] != 4.0 || done["failed"] != 0.0 || done["rows"] != 4.0 {
					t.Fatalf("import %v", done)
				}
				lst := &listFixture{s: s, admin: a, listID: st["listId"].(string), fields: map[string]string{}}
				l := a.Do(t, "GET", lst.path(""), nil).Expect(t, 200).Map(t)
				types := map[string]string{}
				for _, fd := range l["fields"].([]any) {
					m := fd.(map[string]any)
					types[m["title"].(string)] = m["fieldType"].(string)
					lst.fields[m["title"].(string)] = m["id"].(string)
				}
				if types["Количество"] != "number" || types["Дата"] != "date" || types["Готово"] != "boolean" || types["Статус"] != "choice" || types["Сайт"] != "link" {
					t.Fatalf("field types %v", types)
				}
				items, _ := lst.list(t, a, map[string]string{"sort": "id:asc"})
				fv := items[0]["field_values"].(map[string]any)
				if len(items) != 4 || fv[lst.fields["Title"]] != "Первый" || fv[lst.fields["Количество"]] != 1234.5 ||
					fv[lst.fields["Дата"]] != "2024-01-31" || fv[lst.fields["Готово"]] != true || fv[lst.fields["Статус"]] != "Новый" {
					t.Fatalf("first item %v", fv)
				}
			})
		}

		t.Run("xlsx", func(t *testing.T) {
			day := time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)
			data := xlsxOf(t, [][]any{{"Title", "Amount", "When", "Stamp"},
				{"one", 12.25, day, day.Add(13*time.Hour + 30*time.Minute)},
				{"two", 7, day.AddDate(0, 0, 1), day.Add(36 * time.Hour)}}, map[int]string{2: "dd.mm.yyyy", 3: "m/d/yy h:mm"})
			pv := uploadPreview(t, a, "/nodes/"+nodeID+"/lists/import/preview", "book.xlsx", data)
			if pv["file"].(map[string]any)["format"] != "xlsx" || column(t, pv, "Amount")["proposedType"] != "number" ||
				column(t, pv, "When")["proposedType"] != "date" || column(t, pv, "Stamp")["proposedType"] != "datetime" {
				t.Fatalf("xlsx preview %v", pv)
			}
			st := a.Do(t, "POST", "/nodes/"+nodeID+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": "Book", "slug": "book"}).Expect(t, 202).Map(t)
			if done := waitImport(t, a, st["listId"].(string), st["id"].(string)); done["created"] != 2.0 {
				t.Fatalf("xlsx import %v", done)
			}
			lst := &listFixture{s: s, admin: a, listID: st["listId"].(string)}
			items, meta := lst.list(t, a, map[string]string{"sort": "id:asc"})
			ids := map[string]string{}
			for _, fd := range meta["fields"].([]any) {
				m := fd.(map[string]any)
				ids[m["title"].(string)] = m["id"].(string)
			}
			fv := items[0]["field_values"].(map[string]any)
			if fv[ids["Amount"]] != 12.25 || fv[ids["When"]] != "2024-03-15" || fv[ids["Stamp"]] != "2024-03-15T13:30:00.000Z" {
				t.Fatalf("xlsx item %v (%v)", fv, ids)
			}
		})

		t.Run("rights and bad files", func(t *testing.T) {
			viewer, vid := s.CreateUser(t, "impviewer", false)
			listGrant(t, a, "node", nodeID, vid, "view")
			viewer.Upload(t, "POST", "/nodes/"+nodeID+"/lists/import/preview", "file", "x.csv", []byte("a,b\n1,2\n"), nil).Expect(t, 403, "FORBIDDEN")
			a.Upload(t, "POST", "/nodes/"+nodeID+"/lists/import/preview", "file", "x.xlsx", []byte("PK\x03\x04garbage"), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Upload(t, "POST", "/nodes/"+nodeID+"/lists/import/preview", "file", "x.csv", []byte{}, nil).Expect(t, 400, "VALIDATION_ERROR")
			pv := uploadPreview(t, a, "/nodes/"+nodeID+"/lists/import/preview", "x.csv", []byte("a,b\n1,2\n"))
			// the token is the uploader's own
			other, oid := s.CreateUser(t, "impother", true)
			_ = oid
			other.Do(t, "POST", "/nodes/"+nodeID+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": "X", "slug": "x-other"}).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "POST", "/nodes/"+nodeID+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": "X", "slug": "x-bad",
				"columns": []any{map[string]any{"index": 5}}}).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "POST", "/nodes/"+nodeID+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": "X", "slug": "x-bad",
				"columns": []any{map[string]any{"index": 0, "fieldType": "lookup"}}}).Expect(t, 400, "VALIDATION_ERROR")
		})
	})
}

// TestListsImportIntoList: bad rows are reported and the good ones saved;
// a key column updates items (with versions); a SharePoint export maps its
// person and choice columns and skips its system columns.
func TestListsImportIntoList(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "impinto")
		a := f.admin
		a.Do(t, "PATCH", f.path(""), map[string]any{"versioningEnabled": true}).Expect(t, 200)
		code := f.addField(t, "code", "text", nil, map[string]any{"isRequired": true})
		amount := f.addField(t, "amount", "number", nil)
		f.create(t, a, map[string]any{"title": "Existing", code: "A1", amount: 1})
		data := csvOf([][]string{{"Title", "code", "amount"}, {"good one", "B1", "5"}, {"bad number", "B2", "five"},
			{"no code", "", "3"}, {"good two", "B3", "6"}}, ',')
		pv := uploadPreview(t, a, f.path("/items/import/preview"), "rows.csv", []byte(data))
		if c := column(t, pv, "amount"); c["fieldId"] != amount || len(c["problems"].([]any)) != 1 ||
			!strings.Contains(c["problems"].([]any)[0].(string), "rows 3") {
			t.Fatalf("amount column %v", c)
		}
		st := a.Do(t, "POST", f.path("/items/import"), map[string]any{"uploadToken": pv["uploadToken"]}).Expect(t, 202).Map(t)
		done := waitImport(t, a, f.listID, st["id"].(string))
		if done["created"] != 2.0 || done["failed"] != 2.0 || done["errorCount"] != 2.0 {
			t.Fatalf("import %v", done)
		}
		errs := done["errors"].([]any)
		if e := errs[0].(map[string]any); e["row"] != 3.0 || e["column"] != "amount" {
			t.Fatalf("errors %v", errs)
		}
		if e := errs[1].(map[string]any); e["row"] != 4.0 || e["column"] != "code" {
			t.Fatalf("errors %v", errs)
		}
		rep := fileAnswer{a.Do(t, "GET", f.path("/imports/"+st["id"].(string)+"/errors"), nil)}.File(t)
		recs := readCSV(t, rep.Raw)
		if len(recs) != 3 || recs[0][0] != "row" || recs[1][0] != "3" || recs[2][0] != "4" {
			t.Fatalf("report %q", recs)
		}
		if _, meta := f.list(t, a, nil); meta["total"] != 3.0 {
			t.Fatalf("items after import %v", meta["total"])
		}

		t.Run("update by key", func(t *testing.T) {
			data := csvOf([][]string{{"Code", "Amount"}, {"a1", "42"}, {"C1", "9"}, {"C1", "10"}}, ';')
			pv := uploadPreview(t, a, f.path("/items/import/preview"), "upd.csv", []byte(data))
			st := a.Do(t, "POST", f.path("/items/import"), map[string]any{"uploadToken": pv["uploadToken"], "keyField": "code",
				"mapping": []any{map[string]any{"column": "Code", "fieldId": "code"}, map[string]any{"column": "1", "fieldId": amount}}}).Expect(t, 202).Map(t)
			done := waitImport(t, a, f.listID, st["id"].(string))
			// "C1" is created by its first row (no title: the title field is required: the create fails)
			if done["updated"] != 1.0 {
				t.Fatalf("update import %v", done)
			}
			it := a.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200).Map(t)
			if it["field_values"].(map[string]any)[amount] != 42.0 {
				t.Fatalf("updated item %v", it)
			}
			vs := a.Do(t, "GET", f.path("/items/1/versions"), nil).Expect(t, 200).Map(t)
			if n := len(vs["versions"].([]any)); n < 1 {
				t.Fatalf("versions %v", vs)
			}
			// a viewer cannot import
			viewer, vid := s.CreateUser(t, "impintoviewer", false)
			listGrant(t, a, "list", f.listID, vid, "view")
			viewer.Upload(t, "POST", f.path("/items/import/preview"), "file", "x.csv", []byte(data), nil).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "POST", f.path("/items/import"), map[string]any{"uploadToken": pv["uploadToken"]}).Expect(t, 403, "FORBIDDEN")
			viewer.Do(t, "GET", f.path("/imports/"+st["id"].(string)), nil).Expect(t, 404, "NOT_FOUND")
			a.Do(t, "POST", f.path("/items/import"), map[string]any{"uploadToken": pv["uploadToken"], "keyField": "amount", "keyColumn": "nope"}).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("sharepoint", func(t *testing.T) {
			_, vid := s.CreateUser(t, "vera", false)
			_, _ = s.CreateUser(t, "oleg", false)
			_ = vid
			created := time.Date(2023, 5, 1, 9, 0, 0, 0, time.UTC)
			rows := [][]any{{"Title", "Status", "Assigned To", "Due Date", "Created", "Created By", "Modified", "Modified By", "Item Type", "Path"}}
			for i, who := range []string{"Vera", "Oleg", "Vera;Oleg", "Vera"} {
				st := []string{"Open", "Closed"}[i%2]
				rows = append(rows, []any{"Task " + string(rune('A'+i)), st, who, time.Date(2023, 6, 1+i, 0, 0, 0, 0, time.UTC), created, "Admin", created, "Admin", "Item", "sites/x/Lists/Tasks"})
			}
			data := xlsxOf(t, rows, map[int]string{3: "m/d/yyyy", 4: "m/d/yyyy h:mm", 6: "m/d/yyyy h:mm"})
			node := a.Do(t, "POST", "/nodes", map[string]any{"slug": "sp-node", "title": "SP"}).Expect(t, 201).Map(t)
			pv := uploadPreview(t, a, "/nodes/"+node["id"].(string)+"/lists/import/preview", "Tasks.xlsx", data)
			for _, h := range []string{"Created", "Created By", "Modified", "Modified By", "Item Type", "Path"} {
				if c := column(t, pv, h); c["skip"] != true || len(c["problems"].([]any)) == 0 {
					t.Fatalf("%s not skipped: %v", h, c)
				}
			}
			if c := column(t, pv, "Assigned To"); c["proposedType"] != "person" {
				t.Fatalf("person column %v", c)
			}
			if c := column(t, pv, "Status"); c["proposedType"] != "choice" {
				t.Fatalf("choice column %v", c)
			}
			if c := column(t, pv, "Title"); c["asTitle"] != true {
				t.Fatalf("title column %v", c)
			}
			st := a.Do(t, "POST", "/nodes/"+node["id"].(string)+"/lists/import", map[string]any{"uploadToken": pv["uploadToken"], "title": "Tasks", "slug": "tasks",
				"columns": []any{map[string]any{"index": 0, "asTitle": true}, map[string]any{"index": 1}, map[string]any{"index": 2, "allowMultiple": true},
					map[string]any{"index": 3}}}).Expect(t, 202).Map(t)
			done := waitImport(t, a, st["listId"].(string), st["id"].(string))
			if done["created"] != 4.0 || done["failed"] != 0.0 {
				t.Fatalf("sharepoint import %v", done)
			}
			lst := &listFixture{s: s, admin: a, listID: st["listId"].(string)}
			items, meta := lst.list(t, a, map[string]string{"sort": "id:asc"})
			ids := map[string]string{}
			for _, fd := range meta["fields"].([]any) {
				m := fd.(map[string]any)
				ids[m["title"].(string)] = m["id"].(string)
			}
			if _, ok := ids["Created By"]; ok {
				t.Fatalf("system column imported: %v", ids)
			}
			fv := items[2]["field_values"].(map[string]any)
			who := fv[ids["Assigned To"]].([]any)
			if len(who) != 2 || who[0].(map[string]any)["display"] != "Vera" || fv[ids["Status"]] != "Open" || fv[ids["Due Date"]] != "2023-06-03" {
				t.Fatalf("sharepoint item %v", fv)
			}
		})
	})
}
