package menu

import (
	"slices"
	"testing"
)

func TestTreeHelpers(t *testing.T) {
	// a(0) > b(0) > c(0); a > d(1); e(1) at top
	all := []row{
		{ID: "e", SortOrder: 1}, {ID: "a", SortOrder: 0},
		{ID: "d", ParentItemID: "a", SortOrder: 1}, {ID: "b", ParentItemID: "a", SortOrder: 0},
		{ID: "c", ParentItemID: "b"},
	}
	for _, c := range []struct {
		id            string
		depth, height int
	}{{"a", 1, 3}, {"b", 2, 2}, {"c", 3, 1}, {"d", 2, 1}, {"e", 1, 1}} {
		if d := depthOf(all, c.id); d != c.depth {
			t.Errorf("depthOf(%s) = %d", c.id, d)
		}
		if h := height(all, c.id); h != c.height {
			t.Errorf("height(%s) = %d", c.id, h)
		}
	}
	ids := func(rs []row) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if got := ids(siblings(all, "")); !slices.Equal(got, []string{"a", "e"}) {
		t.Errorf("top level %v", got)
	}
	if got := ids(siblings(all, "a")); !slices.Equal(got, []string{"b", "d"}) {
		t.Errorf("children of a %v", got)
	}
	got := subtree(all, "a")
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("subtree %v", got)
	}
}
