package field

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestNarrowAndTightened(t *testing.T) {
	yes, no := true, false
	choice := func(multi bool, choices ...string) *Def {
		m := multi
		return &Def{Type: Choice, Settings: FieldSettings{Choices: choices, AllowMultiple: &m}}
	}
	person := func(users, groups, multi *bool) *Def {
		return &Def{Type: Person, Settings: FieldSettings{AllowUsers: users, AllowGroups: groups, AllowMultiple: multi}}
	}
	lookup := func(multi *bool) *Def {
		return &Def{Type: Lookup, Settings: FieldSettings{LookupListID: "l", AllowMultiple: multi}}
	}
	u := map[string]any{"principalType": "user", "id": "u1", "display": "U"}
	g := map[string]any{"principalType": "group", "id": "g1", "display": "G"}
	cases := []struct {
		name      string
		old, new  *Def
		in        any
		want      any
		tightened bool
	}{
		{"choice removed", choice(true, "a", "b"), choice(true, "a"), []any{"a", "b"}, []string{"a"}, true},
		{"choice to single keeps first", choice(true, "a", "b"), choice(false, "a", "b"), []any{"b", "a"}, "b", true},
		{"choice all gone", choice(false, "a", "b"), choice(false, "b"), "a", nil, true},
		{"choice widened", choice(false, "a"), choice(false, "a", "b"), "a", "a", false},
		{"person no groups", person(&yes, &yes, &yes), person(&yes, &no, &yes), []any{g, u}, []Subject{{PrincipalType: "user", ID: "u1", Display: "U"}}, true},
		{"person single", person(nil, nil, nil), person(nil, nil, &no), []any{u, g}, Subject{PrincipalType: "user", ID: "u1", Display: "U"}, true},
		{"lookup single keeps first", lookup(&yes), lookup(&no), []LookupValue{{ItemID: 7}, {ItemID: 8}, {ItemID: 10}}, LookupValue{ItemID: 7}, true},
		{"lookup single from JSON", lookup(&yes), lookup(nil), []any{map[string]any{"itemId": 8.0}, map[string]any{"itemId": 3.0}}, LookupValue{ItemID: 8}, true},
		{"lookup widened", lookup(&no), lookup(&yes), LookupValue{ItemID: 7}, []LookupValue{{ItemID: 7}}, false},
		{"lookup empty", lookup(&yes), lookup(&no), nil, nil, true},
		{"text untouched", &Def{Type: Text}, &Def{Type: Text}, "x", "x", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Tightened(c.old, c.new); got != c.tightened {
				t.Fatalf("Tightened = %v, want %v", got, c.tightened)
			}
			if got := Narrow(c.new, c.in); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Narrow = %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestSettingsHelpers(t *testing.T) {
	if _, _, err := DecodeSettings(json.RawMessage(`{"bogus":1}`)); err == nil {
		t.Fatal("unknown settings key accepted")
	}
	if _, given, err := DecodeSettings(json.RawMessage(`null`)); err != nil || given {
		t.Fatal("null settings must be absent")
	}
	cur := FieldSettings{LookupListID: "l", LookupFieldID: "f"}
	got := MergeSettings(cur, FieldSettings{LookupLibraryID: "b"}, json.RawMessage(`{"lookupLibraryId":"b"}`))
	if got.LookupListID != "" || got.LookupLibraryID != "b" || got.LookupFieldID != "f" {
		t.Fatalf("MergeSettings = %+v", got)
	}
	if !SameSettings(cur, json.RawMessage(`{"lookupListId":"l","lookupFieldId":"f"}`)) || SameSettings(cur, json.RawMessage(`{"lookupListId":"x"}`)) {
		t.Fatal("SameSettings")
	}
	for name, ok := range map[string]bool{"status": true, "field_3": false, "__x": false, "Bad": false} {
		if (CheckInternalName(name) == nil) != ok {
			t.Fatalf("CheckInternalName(%q) ok=%v", name, !ok)
		}
	}
	if CheckSortOrder(MaxSortOrder+1) == nil || CheckSortOrder(-MaxSortOrder) != nil {
		t.Fatal("CheckSortOrder")
	}
}
