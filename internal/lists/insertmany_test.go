package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"coreportal/internal/search"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestImportBatchWritesWhatSavesDo: the creates of an import batch (one
// transaction, multi-row statements) leave the same item rows, versions,
// events, access-control objects and index entries as items created one by
// one; invalid rows are reported and write nothing.
func TestImportBatchWritesWhatSavesDo(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		f.svc.UseIndex(search.New(db, f.svc.acl))
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Tasks", Slug: "tasks"})
		if err != nil {
			t.Fatal(err)
		}
		on := true
		if _, err := f.svc.Update(ctx, f.admin, l.ID, ListPatch{VersioningEnabled: &on, SearchEnabled: &on}); err != nil {
			t.Fatal(err)
		}
		for _, fd := range [][3]string{{"amount", "number", ""}, {"due", "date", ""},
			{"status", "choice", `{"choices":["new","open"]}`}, {"notes", "html_text", ""}} {
			name, typ := fd[0], fd[1]
			in := FieldInput{InternalName: &name, Title: &name, FieldType: &typ}
			if fd[2] != "" {
				in.Settings = json.RawMessage(fd[2])
			}
			if _, err := f.svc.CreateField(ctx, f.admin, l.ID, in); err != nil {
				t.Fatal(err)
			}
		}
		rows := []map[string]any{
			{"title": "One", "amount": 5, "due": "2026-01-02", "status": "new", "notes": "<p>first <b>note</b></p>"},
			{"title": "Two", "amount": 7.5, "status": "open"},
			{"title": "Три"},
		}
		for _, r := range rows {
			if _, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(r)); err != nil {
				t.Fatal(err)
			}
		}
		var crs []QuickCreate
		for i, r := range rows {
			crs = append(crs, QuickCreate{ClientRowID: fmt.Sprint(i), FieldValues: raws(r)})
		}
		crs = append(crs, QuickCreate{ClientRowID: "bad", FieldValues: raws(map[string]any{"title": "Bad", "status": "nope"})})
		res, err := f.svc.quickBatch(ctx, f.admin, l.ID, nil, crs)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Created) != 3 || len(res.Errors) != 1 || *res.Errors[0].ClientRowID != "bad" {
			t.Fatalf("batch: %+v", res)
		}
		for i, c := range res.Created {
			if c.ID != int64(4+i) || c.ClientRowID != fmt.Sprint(i) {
				t.Fatalf("created %d: %+v", i, c)
			}
		}
		sc := mustLoad(t, f.svc, l.ID)
		one, many := savedState(t, f.svc, sc, 1), savedState(t, f.svc, sc, 4)
		if len(one) != 3 || len(many) != 3 {
			t.Fatalf("saved %d and %d items", len(one), len(many))
		}
		for i := range one {
			if !reflect.DeepEqual(one[i], many[i]) {
				t.Errorf("item %d: one by one\n%v\nin a batch\n%v", i+1, one[i], many[i])
			}
		}
		var n int
		if err := db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM "+safeIdent(sc.list.Table)).Scan(&n); err != nil || n != 6 {
			t.Fatalf("items %d %v", n, err)
		}
	})
}

// savedState is what a save left for items from..from+2, with what differs
// by nature (guids, numbers, times) left out.
func savedState(t *testing.T, s *Service, sc *schema, from int64) []map[string]any {
	t.Helper()
	ctx, db := context.Background(), s.db
	var out []map[string]any
	numField := sc.field(sysItemNumber).ID
	for n := from; n < from+3; n++ {
		it, err := s.findItem(ctx, sc, fmt.Sprint(n))
		if err != nil {
			t.Fatal(err)
		}
		st := map[string]any{}
		vals := map[string]any{}
		for k, v := range it.Values {
			if k != numField {
				vals[k] = fmt.Sprint(v)
			}
		}
		st["values"] = vals
		st["createdBy"], st["inherits"] = it.CreatedBy, it.Inherits
		st["versions"] = textRows(t, db, `SELECT version_number, change_type, field_values, changes, changed_by FROM list_item_versions
			WHERE item_guid = ? ORDER BY version_number`, it.GUID, numField)
		st["events"] = textRows(t, db, `SELECT event_name, resource_type, scope_id, actor_id, payload FROM outbox
			WHERE resource_id = ? ORDER BY id`, it.GUID, numField)
		st["acl"] = textRows(t, db, "SELECT type, parent_id, inherits FROM acl_objects WHERE id = ?", it.GUID, "")
		st["search"] = textRows(t, db, `SELECT type, node_id, container_id, boundary, slug, title, body FROM search_entries
			WHERE id = ?`, it.GUID, "")
		if len(st["versions"].([]string)) != 1 || len(st["events"].([]string)) != 1 || len(st["acl"].([]string)) != 1 ||
			len(st["search"].([]string)) != 1 {
			t.Fatalf("item %d: %v", n, st)
		}
		out = append(out, st)
	}
	return out
}

// textRows reads rows as text; JSON columns lose their item number, guid and times.
func textRows(t *testing.T, db *store.DB, q string, arg any, numField string) []string {
	t.Helper()
	rows, err := db.Q(context.Background()).QueryContext(context.Background(), q, arg)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		line := ""
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			if s, ok := v.(string); ok && len(s) > 0 && s[0] == '{' {
				v = stripVolatile(s, numField)
			}
			line += fmt.Sprintf("%s=%v; ", cols[i], v)
		}
		out = append(out, line)
	}
	return out
}

// stripVolatile drops the keys of a JSON object, at any depth, whose values
// differ between two saves of the same values.
func stripVolatile(s, numField string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	var walk func(any) any
	walk = func(x any) any {
		switch m := x.(type) {
		case map[string]any:
			for k, e := range m {
				switch k {
				case "id", "guid", "created_at", "updated_at", numField:
					delete(m, k)
				default:
					m[k] = walk(e)
				}
			}
		case []any:
			for i := range m {
				m[i] = walk(m[i])
			}
		}
		return x
	}
	j, _ := json.Marshal(walk(v))
	return string(j)
}
