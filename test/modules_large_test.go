package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// largeList is a list resource with n text fields f0..f<n-1>; selfAt >= 0
// makes that field a lookup of the list itself.
func largeList(key, slug string, n, views, selfAt int) map[string]any {
	fields := make([]any, n)
	for i := range n {
		f := map[string]any{"internalName": fmt.Sprintf("f%d", i), "title": fmt.Sprintf("F%d", i), "fieldType": "text"}
		if i == selfAt {
			f["fieldType"], f["settings"] = "lookup", map[string]any{"lookupListId": map[string]any{"$ref": key}}
		}
		fields[i] = f
	}
	vs := make([]any, views)
	for i := range views {
		vs[i] = map[string]any{"key": fmt.Sprintf("v%d", i), "title": "V", "config": map[string]any{"sort": []any{map[string]any{"column": fmt.Sprintf("f%d", i%max(n, 1)), "direction": "asc"}}}}
	}
	return map[string]any{"key": key, "type": "list", "node": map[string]any{"$ref": "nodes.big"}, "title": "Big " + slug, "slug": slug, "fields": fields, "views": vs}
}

// A large module installs with every field usable (a new list's fields are
// created with its table), and what would hold the writer too long is
// refused with 400 before anything is written: too many fields or views in
// the package, or too many fields added to lists that exist.
func TestModulesLarge(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		res := []map[string]any{node("nodes.big", "big")}
		for k := range 8 {
			res = append(res, largeList(fmt.Sprintf("lists.l%d", k), fmt.Sprintf("l%d", k), 100, 20, -1))
		}
		// a field that looks up its own list, with fields after it
		res = append(res, largeList("lists.self", "self", 10, 0, 4))
		start := time.Now()
		r := installModule(t, admin, coremod(t, mod("acme.big", "1.0.0", nil, res...)), "").Expect(t, 201).Map(t)
		t.Logf("%s: 8 lists x 100 fields x 20 views + 1 self-lookup list installed in %v", t.Name(), time.Since(start))
		rm := r["resourceMap"].(map[string]any)
		if len(rm) != 1+8*(1+100+20)+1+10 {
			t.Fatalf("resource map has %d entries", len(rm))
		}
		l0, self := rm["lists.l0"].(string), rm["lists.self"].(string)
		item := admin.Do(t, "POST", "/lists/"+l0+"/items", map[string]any{"fieldValues": map[string]any{"title": "x", "f0": "first", "f99": "last"}}).Expect(t, 201).Map(t)
		fv := item["field_values"].(map[string]any)
		if fv[rm["lists.l0.fields.f0"].(string)] != "first" || fv[rm["lists.l0.fields.f99"].(string)] != "last" {
			t.Fatalf("item %v", item)
		}
		var items []map[string]any
		admin.Do(t, "GET", "/lists/"+l0+"/items?sort=f99&filter="+`{"conditions":[{"column":"f50","op":"isEmpty"}]}`, nil).Expect(t, 200).Into(t, &items)
		if len(items) != 1 {
			t.Fatalf("listing %v", items)
		}
		var list map[string]any
		admin.Do(t, "GET", "/lists/"+self, nil).Expect(t, 200).Into(t, &list)
		order := []string{}
		for _, f := range list["fields"].([]any) {
			order = append(order, f.(map[string]any)["internal_name"].(string))
		}
		if !strings.Contains(strings.Join(order, ","), "f3,f4,f5") || len(order) != 13 {
			t.Fatalf("self-lookup list fields %v", order)
		}

		before := len(nodeSlugs(t, admin))
		over := []map[string]any{node("nodes.big", "big2")}
		for k := range 21 {
			over = append(over, largeList(fmt.Sprintf("lists.l%d", k), fmt.Sprintf("l%d", k), 0, 20, -1))
		}
		e := installModule(t, admin, coremod(t, mod("acme.over", "1.0.0", nil, over...)), "").Expect(t, 400, "VALIDATION_ERROR")
		if e.Error.Details["field"] != "resources" || !strings.Contains(e.Error.Message, "420") {
			t.Fatalf("too many views: %s", e.Raw)
		}
		// an upgrade adding 101 fields to lists that exist is refused, nothing changes
		v1 := []map[string]any{node("nodes.big", "grow"), largeList("lists.a", "a", 0, 0, -1), largeList("lists.b", "b", 0, 0, -1)}
		installModule(t, admin, coremod(t, mod("acme.grow", "1.0.0", nil, v1...)), "").Expect(t, 201)
		v2 := []map[string]any{node("nodes.big", "grow"), largeList("lists.a", "a", 100, 0, -1), largeList("lists.b", "b", 1, 0, -1), node("nodes.more", "grow-more")}
		e = installModule(t, admin, coremod(t, mod("acme.grow", "2.0.0", nil, v2...)), "").Expect(t, 400, "VALIDATION_ERROR")
		if !strings.Contains(e.Error.Message, "add 101 fields") {
			t.Fatalf("upgrade: %s", e.Raw)
		}
		if len(nodeSlugs(t, admin)) != before+1 {
			t.Fatal("a refused package wrote something")
		}
		var recs []map[string]any
		admin.Do(t, "GET", "/modules", nil).Expect(t, 200).Into(t, &recs)
		for _, rec := range recs {
			if rec["moduleKey"] == "acme.grow" && rec["version"] != "1.0.0" {
				t.Fatalf("refused upgrade recorded: %v", rec)
			}
		}
		// exactly the limit is fine
		v2[2] = largeList("lists.b", "b", 0, 0, -1)
		installModule(t, admin, coremod(t, mod("acme.grow", "2.0.0", nil, v2...)), "").Expect(t, 200)
	})
}
