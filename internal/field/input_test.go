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

// TestLookupTargetIsFixed: a lookup's stored values are numbers of its
// target's items, so the target list or library cannot change (attack
// finding F8); what it shows (lookupFieldId) and its multiplicity can.
func TestLookupTargetIsFixed(t *testing.T) {
	const a, b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
	ok := func(FieldSettings) error { return nil }
	cases := []struct {
		name     string
		settings string
		wantErr  bool
	}{
		{"same list", `{"lookupListId":"` + a + `"}`, false},
		{"same list, upper case", `{"lookupListId":"00000000-0000-0000-0000-00000000000A"}`, false},
		{"shown column", `{"lookupFieldId":"item_number"}`, false},
		{"multiplicity", `{"allowMultiple":true}`, false},
		{"other list", `{"lookupListId":"` + b + `"}`, true},
		{"other list, key in another case", `{"lookupListID":"` + b + `"}`, true},
		{"a library instead", `{"lookupLibraryId":"` + b + `"}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := New("owner", Input{Title: ptr("ref"), FieldType: ptr(Lookup), Settings: json.RawMessage(`{"lookupListId":"` + a + `"}`)}, 30, ok)
			if err != nil {
				t.Fatal(err)
			}
			err = Patch(f, Input{Settings: json.RawMessage(c.settings)}, ok)
			if c.wantErr != fault.Is(err, fault.CodeValidation) || !c.wantErr && err != nil {
				t.Fatalf("Patch(%s) = %v", c.settings, err)
			}
			if c.wantErr && f.Settings.LookupListID != a {
				t.Fatalf("refused patch changed the settings: %+v", f.Settings)
			}
		})
	}
}

// TestLookupTargetForms: a target id is stored lower-cased, whatever case the
// client sends, and only in the 8-4-4-4-12 form (attack finding: an
// upper-case library id was stored as sent, a list id then not found).
func TestLookupTargetForms(t *testing.T) {
	k := MustOf(&Def{Type: Lookup})
	cases := []struct {
		in      FieldSettings
		want    string
		wantErr bool
	}{
		{FieldSettings{LookupListID: "0A1B2C3D-0000-4000-8000-00000000000F"}, "0a1b2c3d-0000-4000-8000-00000000000f", false},
		{FieldSettings{LookupLibraryID: "0a1b2c3d-0000-4000-8000-00000000000f"}, "0a1b2c3d-0000-4000-8000-00000000000f", false},
		{FieldSettings{LookupListID: "{0a1b2c3d-0000-4000-8000-00000000000f}"}, "", true},
		{FieldSettings{LookupListID: "0a1b2c3d00004000800000000000000f"}, "", true},
	}
	for _, c := range cases {
		got, err := k.CheckSettings(c.in, false)
		if c.wantErr != (err != nil) {
			t.Fatalf("CheckSettings(%+v) err = %v", c.in, err)
		}
		if !c.wantErr && got.LookupListID+got.LookupLibraryID != c.want {
			t.Fatalf("CheckSettings(%+v) = %+v, want target %s", c.in, got, c.want)
		}
	}
}
