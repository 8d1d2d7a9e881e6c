package test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"coreportal/test/kit"
)

func TestListsFilterSortSearch(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "filters")
		a := f.admin
		target := newListFixture(t, s, "filtertarget")
		target.create(t, a, map[string]any{"title": "Moscow"})
		target.create(t, a, map[string]any{"title": "Berlin"})
		_, bobID := s.CreateUser(t, "bobby", false)
		f.addField(t, "note", "text", nil)
		f.addField(t, "body", "html_text", nil)
		f.addField(t, "memo", "multiline_text", nil)
		f.addField(t, "n", "number", nil)
		f.addField(t, "code", "text", nil)
		f.addField(t, "due", "date", nil)
		f.addField(t, "at", "datetime", nil)
		f.addField(t, "ok", "boolean", nil)
		f.addField(t, "tags", "choice", map[string]any{"choices": []string{"Red", "Green", "Blue"}, "allowMultiple": true})
		f.addField(t, "who", "person", nil)
		f.addField(t, "city", "lookup", map[string]any{"lookupListId": target.listID})
		f.addField(t, "site", "link", nil)
		today := time.Now().UTC().Format(time.DateOnly)
		day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format(time.DateOnly) }
		rows := []map[string]any{
			{"title": "Привет Мир", "note": "Alpha", "body": "<b>Жирный</b> текст", "memo": "line one\nline two", "n": 10, "code": "10", "due": day(-3), "at": today + "T10:00:00Z",
				"ok": true, "tags": []string{"Red"}, "who": []any{map[string]any{"principalType": "user", "id": bobID}}, "city": 1, "site": "https://a.example/x"},
			{"title": "beta", "note": "alphabet", "n": 9, "code": "9", "due": today, "at": day(-1) + "T23:59:59Z", "ok": false, "tags": []string{"Green", "Blue"},
				"city": 2, "site": "https://b.example"},
			{"title": "Gamma", "note": "ALPHA", "n": 100, "code": "100", "due": day(7), "who": []any{map[string]any{"principalType": "user", "id": bobID}}},
			{"title": "ёлка"},
		}
		for _, r := range rows {
			f.create(t, a, r)
		}
		// the administrator is the current user for [Я]: put him in one row
		a.Do(t, "PATCH", f.path("/items/4"), map[string]any{"fieldValues": map[string]any{"who": []any{map[string]any{"principalType": "user", "id": adminID(t, a)}}}}).Expect(t, 200)

		cases := []struct {
			col, op string
			val     any
			want    []string
		}{
			{"note", "eq", "alpha", []string{"Привет Мир", "Gamma"}},
			{"note", "ne", "alpha", []string{"beta", "ёлка"}},
			{"note", "contains", "PHA", []string{"Привет Мир", "beta", "Gamma"}},
			{"note", "startsWith", "alphab", []string{"beta"}},
			{"note", "gt", "alpha", []string{"beta"}},
			{"note", "gte", "alpha", []string{"Привет Мир", "beta", "Gamma"}},
			{"note", "lt", "alphabet", []string{"Привет Мир", "Gamma"}},
			{"note", "lte", "alpha", []string{"Привет Мир", "Gamma"}},
			{"note", "in", []string{"ALPHA", "alphabet"}, []string{"Привет Мир", "beta", "Gamma"}},
			{"note", "isEmpty", nil, []string{"ёлка"}},
			{"note", "isNotEmpty", nil, []string{"Привет Мир", "beta", "Gamma"}},
			{"title", "contains", "МИР", []string{"Привет Мир"}},
			{"title", "eq", "ЁЛКА", []string{"ёлка"}},
			{"title", "eq", "елка", nil}, // ё is not е
			{"title", "startsWith", "ПРИВЕТ м", []string{"Привет Мир"}},
			{"memo", "eq", "LINE ONE\nLINE TWO", []string{"Привет Мир"}},
			{"body", "contains", "жирный", []string{"Привет Мир"}},
			{"memo", "contains", "two", []string{"Привет Мир"}},
			{"n", "eq", 10, []string{"Привет Мир"}},
			{"n", "ne", 10, []string{"beta", "Gamma", "ёлка"}},
			{"n", "gt", 9, []string{"Привет Мир", "Gamma"}},
			{"n", "gte", 10, []string{"Привет Мир", "Gamma"}},
			{"n", "lt", 10, []string{"beta"}},
			{"n", "lte", "10", []string{"Привет Мир", "beta"}},
			{"n", "in", []any{9, 100}, []string{"beta", "Gamma"}},
			{"n", "isEmpty", nil, []string{"ёлка"}},
			{"due", "eq", "[Сегодня]", []string{"beta"}},
			{"due", "lt", "[Сегодня]", []string{"Привет Мир"}},
			{"due", "gte", "[Сегодня]-3", []string{"Привет Мир", "beta", "Gamma"}},
			{"due", "gt", "[Сегодня]+6", []string{"Gamma"}},
			{"due", "lte", day(0), []string{"Привет Мир", "beta"}},
			{"due", "ne", "[Сегодня]", []string{"Привет Мир", "Gamma", "ёлка"}},
			{"due", "in", []string{day(-3), day(7)}, []string{"Привет Мир", "Gamma"}},
			{"due", "isNotEmpty", nil, []string{"Привет Мир", "beta", "Gamma"}},
			{"at", "eq", "[Сегодня]", []string{"Привет Мир"}},
			{"at", "lt", "[Сегодня]", []string{"beta"}},
			{"at", "gte", "[Сегодня]-1", []string{"Привет Мир", "beta"}},
			{"at", "gt", today + "T09:00:00Z", []string{"Привет Мир"}},
			{"at", "lte", "[Сегодня]-1", []string{"beta"}},
			{"at", "isEmpty", nil, []string{"Gamma", "ёлка"}},
			{"ok", "eq", true, []string{"Привет Мир"}},
			{"ok", "ne", true, []string{"beta", "Gamma", "ёлка"}},
			{"ok", "isEmpty", nil, []string{"Gamma", "ёлка"}},
			{"tags", "eq", "green", []string{"beta"}},
			{"tags", "ne", "Red", []string{"beta", "Gamma", "ёлка"}},
			{"tags", "in", []string{"Red", "Blue"}, []string{"Привет Мир", "beta"}},
			{"tags", "contains", "re", []string{"Привет Мир", "beta"}},
			{"tags", "startsWith", "bl", []string{"beta"}},
			{"tags", "isEmpty", nil, []string{"Gamma", "ёлка"}},
			{"tags", "contains", ",", nil}, // the stored JSON's punctuation is not a value
			{"tags", "contains", "n\",\"b", nil},
			{"tags", "eq", "green\",\"blue", nil},
			{"who", "eq", bobID, []string{"Привет Мир", "Gamma"}},
			{"who", "eq", "[Я]", []string{"ёлка"}},
			{"who", "ne", "[Я]", []string{"Привет Мир", "beta", "Gamma"}},
			{"who", "contains", "BOB", []string{"Привет Мир", "Gamma"}},
			{"who", "in", []string{bobID, "[Я]"}, []string{"Привет Мир", "Gamma", "ёлка"}},
			{"who", "isEmpty", nil, []string{"beta"}},
			{"created_by", "eq", "[Я]", []string{"Привет Мир", "beta", "Gamma", "ёлка"}},
			{"city", "eq", 2, []string{"beta"}},
			{"city", "ne", 1, []string{"beta", "Gamma", "ёлка"}},
			{"city", "in", []any{1, 2}, []string{"Привет Мир", "beta"}},
			{"city", "contains", "MOSC", []string{"Привет Мир"}},
			{"city", "startsWith", "ber", []string{"beta"}},
			{"city", "isNotEmpty", nil, []string{"Привет Мир", "beta"}},
			{"site", "contains", "b.EXAMPLE", []string{"beta"}},
			{"site", "startsWith", "https://a", []string{"Привет Мир"}},
			{"site", "eq", "https://b.example", []string{"beta"}},
			{"site", "isEmpty", nil, []string{"Gamma", "ёлка"}},
			{"item_number", "gt", 2, []string{"Gamma", "ёлка"}},
			{"__created_at", "eq", "[Сегодня]", []string{"Привет Мир", "beta", "Gamma", "ёлка"}},
			{"__updated_at", "gt", "[Сегодня]", nil},
			{"__created_at", "lt", "[Сегодня]+1", []string{"Привет Мир", "beta", "Gamma", "ёлка"}},
		}
		for _, c := range cases {
			col := c.col
			if id, ok := f.fields[c.col]; ok && c.col != "title" {
				col = id // mix UUID and internal-name references
			}
			got := f.titles(f.filter(t, a, col, c.op, c.val))
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s %v: got %q want %q", c.col, c.op, c.val, got, want)
			}
		}

		t.Run("bad conditions are 400", func(t *testing.T) {
			for _, bad := range []string{
				`{"conditions":[{"column":"n","operator":"contains","value":"1"}]}`,
				`{"conditions":[{"column":"n","operator":"gt","value":"abc"}]}`,
				`{"conditions":[{"column":"nope","operator":"eq","value":1}]}`,
				`{"conditions":[{"column":"n","operator":"like","value":1}]}`,
				`{"logic":"xor","conditions":[]}`,
				`{"conditions":[{"column":"ok","operator":"gt","value":true}]}`,
				`{"conditions":[{"column":"due","operator":"eq","value":"[Сегодня]+x"}]}`,
				`not json`,
			} {
				r := a.Do(t, "GET", f.path("/items?filter="+urlq(bad)), nil)
				if r.Status != 400 || r.Error.Code != "VALIDATION_ERROR" || r.Error.Details["field"] != "filter" {
					t.Errorf("%s: %d %s", bad, r.Status, r.Raw)
				}
			}
			a.Do(t, "GET", f.path("/items?sort=nope:asc"), nil).Expect(t, 400, "VALIDATION_ERROR")
			a.Do(t, "GET", f.path("/items?sort=n:sideways"), nil).Expect(t, 400, "VALIDATION_ERROR")
		})

		t.Run("or logic and op synonym", func(t *testing.T) {
			j := `{"logic":"or","conditions":[{"column":"n","op":"eq","value":9},{"column":"title","op":"eq","value":"gamma"}]}`
			items, _ := f.list(t, a, map[string]string{"filter": j, "sort": "item_number:asc"})
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"beta", "Gamma"}) {
				t.Fatalf("or: %q", got)
			}
		})

		t.Run("number sorts as number, text as text", func(t *testing.T) {
			items, _ := f.list(t, a, map[string]string{"sort": "n:asc"})
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"beta", "Привет Мир", "Gamma", "ёлка"}) {
				t.Fatalf("number asc: %q", got)
			}
			items, _ = f.list(t, a, map[string]string{"sort": `[{"column":"code","direction":"asc"}]`})
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"Привет Мир", "Gamma", "beta", "ёлка"}) {
				t.Fatalf("text asc: %q", got)
			}
			items, _ = f.list(t, a, map[string]string{"sort": "n:asc", "orderBy": "n:desc"})
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"Gamma", "Привет Мир", "beta", "ёлка"}) {
				t.Fatalf("orderBy wins, empty last: %q", got)
			}
			items, _ = f.list(t, a, map[string]string{"sort": "due:desc"})
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"Gamma", "beta", "Привет Мир", "ёлка"}) {
				t.Fatalf("date desc: %q", got)
			}
			items, _ = f.list(t, a, nil) // default view: __created_at desc
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"ёлка", "Gamma", "beta", "Привет Мир"}) {
				t.Fatalf("default: %q", got)
			}
		})

		t.Run("q is case-insensitive and Unicode-aware", func(t *testing.T) {
			for q, want := range map[string][]string{
				"ПРИВЕТ": {"Привет Мир"}, "мир": {"Привет Мир"}, "ЁЛ": {"ёлка"}, "жирный": {"Привет Мир"},
				// person names are found, lookup displays (another list's text) are not
				"bobby": {"Привет Мир", "Gamma"}, "moscow": {}, "zzz": {}, "100%": {},
			} {
				items, meta := f.list(t, a, map[string]string{"q": q, "sort": "item_number:asc"})
				if got := f.titles(items); !reflect.DeepEqual(got, want) {
					t.Errorf("q=%s: %q want %q", q, got, want)
				}
				if meta["total"].(float64) != float64(len(want)) || meta["totalInView"].(float64) != 4 {
					t.Errorf("q=%s meta %v", q, meta)
				}
			}
		})

		t.Run("paging and meta", func(t *testing.T) {
			items, meta := f.list(t, a, map[string]string{"limit": "3", "page": "2", "sort": "item_number:asc"})
			if len(items) != 1 || meta["total"].(float64) != 4 || meta["totalPages"].(float64) != 2 || meta["page"].(float64) != 2 || meta["limit"].(float64) != 3 {
				t.Fatalf("page 2: %d %v", len(items), meta)
			}
			if len(meta["fields"].([]any)) != 15 || meta["view"].(map[string]any)["is_default"] != true {
				t.Fatalf("meta fields/view %v", meta)
			}
			items, meta = f.list(t, a, map[string]string{"limit": "3", "page": "9"})
			if len(items) != 0 || meta["total"].(float64) != 4 {
				t.Fatalf("past the end: %v", meta)
			}
			_, meta = f.list(t, a, map[string]string{"limit": "900"})
			if meta["limit"].(float64) != 50 {
				t.Fatalf("limit out of range takes the view's pageSize: %v", meta["limit"])
			}
			v := a.Do(t, "POST", f.path("/views"), map[string]any{"title": "Grouped", "config": map[string]any{
				"pageSize": 2, "groupBy": map[string]any{"column": "ok"}, "sort": []any{map[string]any{"column": "title", "direction": "asc"}},
				"filter": map[string]any{"logic": "and", "conditions": []any{map[string]any{"column": "n", "operator": "isNotEmpty"}}}}}).Expect(t, 201).Map(t)
			items, meta = f.list(t, a, map[string]string{"viewId": v["id"].(string), "filter": `{"conditions":[{"column":"n","operator":"lt","value":50}]}`})
			if meta["limit"].(float64) != 2 || meta["total"].(float64) != 2 || meta["totalInView"].(float64) != 3 {
				t.Fatalf("view meta %v", meta)
			}
			groups, _ := json.Marshal(meta["groups"])
			if string(groups) != `[{"count":1,"value":false},{"count":1,"value":true}]` {
				t.Fatalf("groups %s", groups)
			}
			if got := f.titles(items); !reflect.DeepEqual(got, []string{"beta", "Привет Мир"}) {
				t.Fatalf("grouped order %q", got)
			}
		})
	})
}
