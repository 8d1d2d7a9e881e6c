package modules

import (
	"encoding/json"
	"fmt"
	"testing"

	"coreportal/internal/fault"
)

// bigManifest is module.json with lists x fields text fields and views views per list.
func bigManifest(lists, fields, views int, selfLookupAt int) []byte {
	res := []map[string]any{{"key": "n", "type": "node", "title": "N", "slug": "n"}}
	for k := range lists {
		key := fmt.Sprintf("l%d", k)
		var fs, vs []map[string]any
		for i := range fields {
			f := map[string]any{"internalName": fmt.Sprintf("f%d", i), "title": "F", "fieldType": "text"}
			if i == selfLookupAt {
				f["fieldType"], f["settings"] = "lookup", map[string]any{"lookupListId": map[string]any{"$ref": key}}
			}
			fs = append(fs, f)
		}
		for i := range views {
			vs = append(vs, map[string]any{"key": fmt.Sprintf("v%d", i), "title": "V"})
		}
		res = append(res, map[string]any{"key": key, "type": "list", "title": "L", "slug": key, "node": map[string]any{"$ref": "n"}, "fields": fs, "views": vs})
	}
	raw, _ := json.Marshal(map[string]any{"id": "acme.big", "version": "1.0.0", "title": "Big", "resources": res})
	return raw
}

func TestPackageTotals(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		lists, fields, views int
		refused              bool
	}{
		{"at the field limit", 50, 100, 0, false},
		{"one field over", 51, 99, 0, true},
		{"at the view limit", 20, 0, 20, false},
		{"one view over", 21, 0, 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest(bigManifest(tc.lists, tc.fields, tc.views, -1), builtinProvisioners())
			if !tc.refused {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != "resources" {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// Fields added one ALTER TABLE at a time (to existing lists, or after a
// self-lookup) are bounded per installation; a new list's leading fields are not.
func TestCheckAdded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		lists       int
		selfAt      int
		existing    bool // the lists exist (an upgrade adding every field)
		fieldsKnown bool // ...and have their fields already
		refused     bool
	}{
		{"new lists", 10, -1, false, false, false},
		{"upgrade adding 100", 1, -1, true, false, false},
		{"upgrade adding 200", 2, -1, true, false, true},
		{"upgrade adding none", 10, -1, true, true, false},
		{"self-lookups in new lists", 2, 0, false, false, true},
		{"late self-lookup", 2, 60, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest(bigManifest(tc.lists, 100, 0, tc.selfAt), builtinProvisioners())
			if err != nil {
				t.Fatal(err)
			}
			rmap := map[string]string{}
			for k := range tc.lists {
				if tc.existing {
					rmap[fmt.Sprintf("l%d", k)] = "id"
				}
				for i := range 100 {
					if tc.fieldsKnown {
						rmap[fmt.Sprintf("l%d.fields.f%d", k, i)] = "id"
					}
				}
			}
			err = (&creation{m: m, rmap: rmap}).checkAdded()
			if (err != nil) != tc.refused || err != nil && !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("got %v", err)
			}
		})
	}
}
