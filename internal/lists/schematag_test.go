package lists

import "testing"

func TestSentMeta(t *testing.T) {
	base := ListMeta{Page: 2, Limit: 5, Total: 9, TotalPages: 2, TotalInView: 9,
		Fields: []FieldOut{{ID: "f1", Title: "Title"}}, View: ListView{ID: "v1", Title: "All"}}
	renamed := base
	renamed.Fields = []FieldOut{{ID: "f1", Title: "Name"}}
	otherView := base
	otherView.View.Title = "Mine"
	tag := schemaTag(base)
	cases := []struct {
		name      string
		meta      ListMeta
		known     string
		unchanged bool
	}{
		{"no tag sent", base, "", false},
		{"current tag", base, tag, true},
		{"stale tag", base, "stale", false},
		{"field renamed", renamed, tag, false},
		{"view changed", otherView, tag, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SentMeta(c.meta, c.known)
			if got.SchemaUnchanged != c.unchanged || (got.Fields == nil) != c.unchanged || (got.View == nil) != c.unchanged {
				t.Fatalf("unchanged=%v fields=%v view=%v", got.SchemaUnchanged, got.Fields, got.View)
			}
			if got.SchemaTag != schemaTag(c.meta) || got.Total != 9 || got.Page != 2 {
				t.Fatalf("meta %+v", got)
			}
		})
	}
	if schemaTag(renamed) == tag || schemaTag(otherView) == tag || len(tag) != 22 {
		t.Fatalf("tags: %s %s %s", tag, schemaTag(renamed), schemaTag(otherView))
	}
}
