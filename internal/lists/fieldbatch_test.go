package lists

import (
	"context"
	"fmt"
	"testing"

	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func fieldIn(name, title, typ string) FieldInput {
	return FieldInput{InternalName: &name, Title: &title, FieldType: &typ}
}

// A list created with fields has them exactly as consecutive CreateField
// calls would give them (columns, sort order, default names), and a bad
// field refuses the whole list, naming the field.
func TestCreateWithFields(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		title, typ := "Unnamed", "text"
		unnamed := FieldInput{Title: &title, FieldType: &typ}
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "Batch", Slug: "batch",
			Fields: []FieldInput{fieldIn("amount", "Amount", "number"), unnamed, fieldIn("note", "Note", "text")}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, fo := range l.Fields {
			got[fo.InternalName] = fo.SortOrder
		}
		if len(l.Fields) != 6 || got["amount"] != 30 || got["field_4"] != 40 || got["note"] != 50 {
			t.Fatalf("fields %+v", l.Fields)
		}
		// the next field continues the columns; items use every column
		if _, err := f.svc.CreateField(ctx, f.admin, l.ID, fieldIn("later", "Later", "text")); err != nil {
			t.Fatal(err)
		}
		it, err := f.svc.CreateItem(ctx, f.admin, l.ID, raws(map[string]any{"title": "One", "amount": 5, "field_4": "x", "note": "n", "later": "l"}))
		if err != nil || it.ID != 1 {
			t.Fatalf("item %v %v", it, err)
		}
		items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: `{"conditions":[{"column":"amount","op":"gte","value":5}]}`})
		if err != nil || len(items) != 1 || meta.Total != 1 {
			t.Fatalf("list: %v %d %v", err, len(items), meta.Total)
		}

		many := make([]FieldInput, maxFields-2)
		for i := range many {
			many[i] = fieldIn(fmt.Sprintf("f%d", i), "F", "text")
		}
		for _, tc := range []struct {
			name   string
			fields []FieldInput
			code   fault.Code
			field  string
		}{
			{"bad type", []FieldInput{fieldIn("a", "A", "text"), fieldIn("b", "B", "nope")}, fault.CodeValidation, "fields[1].fieldType"},
			{"no title", []FieldInput{fieldIn("a", "", "text")}, fault.CodeValidation, "fields[0].title"},
			{"system name", []FieldInput{fieldIn("title", "T", "text")}, fault.CodeConflict, "fields[0].internalName"},
			{"twice", []FieldInput{fieldIn("a", "A", "text"), fieldIn("a", "A", "text")}, fault.CodeConflict, "fields[1].internalName"},
			{"too many", many, fault.CodeValidation, fmt.Sprintf("fields[%d].fieldType", maxFields-3)},
		} {
			slug := fmt.Sprintf("ok-%d", len(tc.fields)+len(tc.field))
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "X", Slug: "x", Fields: tc.fields})
				fe, ok := fault.As(err)
				if !ok || fe.Code != tc.code || fe.Details["field"] != tc.field {
					t.Fatalf("got %v %v", err, fe)
				}
				// nothing was written: the slug is still free
				if _, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "X", Slug: slug}); err != nil {
					t.Fatal(err)
				}
			})
		}
		if _, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "X", Slug: "x"}); err != nil {
			t.Fatalf("a refused list left something behind: %v", err)
		}
	})
}
