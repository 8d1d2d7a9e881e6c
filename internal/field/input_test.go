package field

import (
	"encoding/json"
	"errors"
	"testing"

	"coreportal/internal/fault"
)

func ptr[T any](v T) *T { return &v }

func TestNewAndPatch(t *testing.T) {
	errLookup := errors.New("lookup rejected")
	noLookup := func(FieldSettings) error { return errLookup }
	cases := []struct {
		name    string
		in      Input
		wantErr string // field of the validation error, "lookup" for the callback
	}{
		{"ok", Input{Title: ptr(" Name "), FieldType: ptr(Text)}, ""},
		{"no title", Input{FieldType: ptr(Text)}, "title"},
		{"bad type", Input{Title: ptr("x"), FieldType: ptr("nope")}, "fieldType"},
		{"bad settings", Input{Title: ptr("x"), FieldType: ptr(Text), Settings: json.RawMessage(`[1]`)}, "settings"},
		{"lookup checked", Input{Title: ptr("x"), FieldType: ptr(Lookup), Settings: json.RawMessage(`{"lookupListId":"00000000-0000-0000-0000-000000000001"}`)}, "lookup"},
		{"bad sort", Input{Title: ptr("x"), FieldType: ptr(Text), SortOrder: ptr(MaxSortOrder + 1)}, "sortOrder"},
		{"bad name", Input{Title: ptr("x"), FieldType: ptr(Text), InternalName: ptr("1 bad")}, "internalName"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := New("owner", c.in, 30, noLookup)
			switch {
			case c.wantErr == "":
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if f.Title != "Name" || f.SortOrder != 30 || f.ListID != "owner" || f.ID == "" || f.InternalName != "" {
					t.Fatalf("New = %+v", f)
				}
			case c.wantErr == "lookup":
				if !errors.Is(err, errLookup) {
					t.Fatalf("err = %v, want the lookup callback's", err)
				}
			default:
				if !fault.Is(err, fault.CodeValidation) {
					t.Fatalf("err = %v, want validation of %s", err, c.wantErr)
				}
			}
		})
	}

	f, err := New("owner", Input{Title: ptr("x"), FieldType: ptr(Text), IsRequired: ptr(true), SortOrder: ptr(5), InternalName: ptr("code")}, 30, noLookup)
	if err != nil || !f.Required || f.SortOrder != 5 || f.InternalName != "code" {
		t.Fatalf("New = %+v, %v", f, err)
	}
	if err := Patch(f, Input{FieldType: ptr(Number)}, noLookup); !fault.Is(err, fault.CodeValidation) {
		t.Fatalf("type change: %v", err)
	}
	if err := Patch(f, Input{InternalName: ptr("other")}, noLookup); !fault.Is(err, fault.CodeValidation) {
		t.Fatalf("name change: %v", err)
	}
	if err := Patch(f, Input{Title: ptr(" New "), IsRequired: ptr(false), SortOrder: ptr(7)}, noLookup); err != nil {
		t.Fatalf("Patch: %v", err)
	}
	if f.Title != "New" || f.Required || f.SortOrder != 7 {
		t.Fatalf("Patch = %+v", f)
	}
}
