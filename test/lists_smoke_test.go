package test

import (
	"testing"

	"coreportal/test/kit"
)

func TestListsSmoke(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "smoke")
		f.addField(t, "amount", "number", nil)
		f.addField(t, "due", "date", nil)
		f.addField(t, "status", "choice", map[string]any{"choices": []string{"Open", "Closed"}})
		f.addField(t, "owner", "person", nil)
		it := f.create(t, f.admin, map[string]any{"title": "First", "amount": 12.5, "due": "2026-01-02", "status": "Open"})
		if it["id"].(float64) != 1 {
			t.Fatalf("number %v", it["id"])
		}
		got := f.admin.Do(t, "GET", f.path("/items/1"), nil).Expect(t, 200).Map(t)
		if f.value(got, "amount") != 12.5 || f.value(got, "status") != "Open" {
			t.Fatalf("values %v", got["field_values"])
		}
		items, meta := f.list(t, f.admin, nil)
		if len(items) != 1 || meta["total"].(float64) != 1 {
			t.Fatalf("list %v %v", items, meta)
		}
	})
}
