package test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"coreportal/test/kit"
)

// testLibraryLookups covers list fields that look up library files (#10 item 5).
func testLibraryLookups(t *testing.T, s *kit.Server) {
	f := newLibFixture(t, s, "lkp")
	a := f.admin
	code := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Code", "internalName": "code", "fieldType": "text"}).Expect(t, 201).Map(t)["id"].(string)
	alpha := f.upload(t, a, "", "alpha.pdf", "application/pdf", []byte("%PDF-1.4 alpha")).Expect(t, 201).Map(t)
	beta := f.folder(t, a, nil, "Beta")
	gamma := f.put(t, a, beta["guid"].(string), "gamma.txt", []byte("gamma"), 201)
	a.Do(t, "PATCH", f.path("/files/%d", num(gamma)), map[string]any{"fieldValues": map[string]any{code: "G-7"}}).Expect(t, 200)

	lst := a.Do(t, "POST", "/lists", map[string]any{"nodeId": f.nodeID, "title": "Refs", "slug": "refs"}).Expect(t, 201).Map(t)
	listID := lst["id"].(string)
	addField := func(name string, settings map[string]any, status int) string {
		r := a.Do(t, "POST", "/lists/"+listID+"/fields", map[string]any{"title": name, "internalName": name, "fieldType": "lookup", "settings": settings}).Expect(t, status)
		if status != 201 {
			return ""
		}
		return r.Map(t)["id"].(string)
	}
	byName := addField("doc", map[string]any{"lookupLibraryId": f.libID}, 201)
	byMime := addField("doc_type", map[string]any{"lookupLibraryId": f.libID, "lookupFieldId": "mime_type", "lookupNodeId": f.nodeID}, 201)
	byCode := addField("doc_code", map[string]any{"lookupLibraryId": f.libID, "lookupFieldId": code, "allowMultiple": true}, 201)
	addField("bad1", map[string]any{"lookupLibraryId": "00000000-0000-0000-0000-000000000001"}, 404)
	addField("bad2", map[string]any{"lookupLibraryId": f.libID, "lookupFieldId": "00000000-0000-0000-0000-000000000001"}, 400)
	addField("bad3", map[string]any{"lookupLibraryId": f.libID, "lookupNodeId": "00000000-0000-0000-0000-000000000001"}, 400)

	it := a.Do(t, "POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{
		"title": "one", byName: map[string]any{"itemId": num(alpha)}, byMime: num(alpha), byCode: []any{num(gamma), num(beta)},
	}}).Expect(t, 201).Map(t)
	fv := it["field_values"].(map[string]any)
	if !reflect.DeepEqual(fv[byName], map[string]any{"itemId": float64(num(alpha)), "display": "alpha.pdf"}) ||
		fv[byMime].(map[string]any)["display"] != "application/pdf" ||
		!reflect.DeepEqual(fv[byCode], []any{map[string]any{"itemId": float64(num(gamma)), "display": "G-7"}, map[string]any{"itemId": float64(num(beta)), "display": ""}}) {
		t.Fatalf("lookup values: %v", fv)
	}
	a.Do(t, "POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{"title": "x", byName: 9999}}).Expect(t, 400, "VALIDATION_ERROR")

	// values are file numbers: filters and sorts reach the current file names
	a.Do(t, "POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{"title": "two", byName: num(gamma)}}).Expect(t, 201)
	var titleID string
	for k, v := range fv {
		if v == "one" {
			titleID = k
		}
	}
	titles := func(query string) []string {
		t.Helper()
		var items []struct {
			FieldValues map[string]any `json:"field_values"`
		}
		a.Do(t, "GET", "/lists/"+listID+"/items?"+query, nil).Expect(t, 200).Into(t, &items)
		var out []string
		for _, x := range items {
			out = append(out, fmt.Sprint(x.FieldValues[titleID]))
		}
		return out
	}
	cond := func(op string, v any) string {
		j, _ := json.Marshal(map[string]any{"conditions": []any{map[string]any{"column": "doc", "operator": op, "value": v}}})
		return "filter=" + url.QueryEscape(string(j))
	}
	for q, want := range map[string][]string{
		cond("contains", "ALP"): {"one"}, cond("startsWith", "gam"): {"two"}, cond("eq", num(gamma)): {"two"},
		"sort=doc:asc": {"one", "two"}, "sort=doc:desc": {"two", "one"},
	} {
		if got := titles(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	a.Do(t, "PATCH", f.path("/files/%d", num(alpha)), map[string]any{"name": "zeta.pdf"}).Expect(t, 200)
	if got := titles("sort=doc:asc"); !reflect.DeepEqual(got, []string{"two", "one"}) {
		t.Errorf("after renaming alpha.pdf: %v", got)
	}
	one := a.Do(t, "GET", "/lists/"+listID+"/items/"+fmt.Sprint(num(it)), nil).Expect(t, 200).Map(t)["field_values"].(map[string]any)
	if one[byName].(map[string]any)["display"] != "zeta.pdf" {
		t.Errorf("display after the rename: %v", one[byName])
	}
	a.Do(t, "PATCH", f.path("/files/%d", num(alpha)), map[string]any{"name": "alpha.pdf"}).Expect(t, 200)

	opts := func(c *kit.Client, query string) map[string]any {
		return c.Do(t, "GET", "/lists/"+listID+"/lookup-options?targetLibraryId="+f.libID+query, nil).Expect(t, 200).Map(t)
	}
	got := opts(a, "&q=ALP")
	if got["accessDenied"] != false || !reflect.DeepEqual(got["options"], []any{map[string]any{"itemId": float64(num(alpha)), "display": "alpha.pdf"}}) {
		t.Fatalf("options by name: %v", got)
	}
	got = opts(a, "&lookupFieldId="+code+"&q=g-")
	if !reflect.DeepEqual(got["options"], []any{map[string]any{"itemId": float64(num(gamma)), "display": "G-7"}}) {
		t.Fatalf("options by custom field: %v", got)
	}
	if got = opts(a, ""); len(got["options"].([]any)) != 3 {
		t.Fatalf("all options: %v", got)
	}
	a.Do(t, "GET", "/lists/"+listID+"/lookup-options?targetLibraryId=nope", nil).Expect(t, 400, "VALIDATION_ERROR")

	// a caller who views the list but not the library: accessDenied, and values refused
	u, uid := s.CreateUser(t, "lookupuser", false)
	grantLib(t, a, "list", listID, uid, "add", nil)
	if got = opts(u, ""); got["accessDenied"] != true || len(got["options"].([]any)) != 0 {
		t.Fatalf("options without view on the library: %v", got)
	}
	u.Do(t, "POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{"title": "y", byName: num(alpha)}}).Expect(t, 400, "VALIDATION_ERROR")
	// view on one file: that file only
	grantLib(t, a, "file", fmt.Sprint(num(alpha)), uid, "view", map[string]any{"libraryId": f.libID})
	grantLib(t, a, "library", f.libID, uid, "view", nil)
	u.Do(t, "POST", "/lists/"+listID+"/items", map[string]any{"fieldValues": map[string]any{"title": "y", byName: num(alpha)}}).Expect(t, 201)

	// library fields look up libraries only
	a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "L", "fieldType": "lookup", "settings": map[string]any{"lookupListId": listID}}).Expect(t, 400, "VALIDATION_ERROR")
	self := a.Do(t, "POST", f.path("/fields"), map[string]any{"title": "Related", "fieldType": "lookup", "settings": map[string]any{"lookupLibraryId": f.libID}}).Expect(t, 201).Map(t)["id"].(string)
	rel := a.Do(t, "PATCH", f.path("/files/%d", num(gamma)), map[string]any{"fieldValues": map[string]any{self: num(alpha)}}).Expect(t, 200).Map(t)
	if rel["field_values"].(map[string]any)[self].(map[string]any)["display"] != "alpha.pdf" {
		t.Fatalf("library lookup field: %v", rel["field_values"])
	}
}
