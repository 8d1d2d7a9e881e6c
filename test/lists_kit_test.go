package test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"coreportal/test/kit"
)

// listFixture is a node with one list, created by the administrator.
type listFixture struct {
	s      *kit.Server
	admin  *kit.Client
	nodeID string
	listID string
	fields map[string]string // internal name -> field id
}

func newListFixture(t *testing.T, s *kit.Server, slug string) *listFixture {
	t.Helper()
	admin := s.Admin(t)
	node := admin.Do(t, "POST", "/nodes", map[string]any{"slug": slug + "-node", "title": "Node " + slug}).Expect(t, 201).Map(t)
	lst := admin.Do(t, "POST", "/lists", map[string]any{"nodeId": node["id"], "title": "List " + slug, "slug": slug}).Expect(t, 201).Map(t)
	f := &listFixture{s: s, admin: admin, nodeID: node["id"].(string), listID: lst["id"].(string), fields: map[string]string{}}
	for _, fd := range lst["fields"].([]any) {
		m := fd.(map[string]any)
		f.fields[m["internal_name"].(string)] = m["id"].(string)
	}
	return f
}

func (f *listFixture) path(suffix string) string { return "/lists/" + f.listID + suffix }

func (f *listFixture) pathf(format string, args ...any) string {
	return "/lists/" + f.listID + fmt.Sprintf(format, args...)
}

func (f *listFixture) addField(t *testing.T, name, typ string, settings map[string]any, extra ...map[string]any) string {
	t.Helper()
	body := map[string]any{"title": name, "internalName": name, "fieldType": typ}
	if settings != nil {
		body["settings"] = settings
	}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	m := f.admin.Do(t, "POST", f.path("/fields"), body).Expect(t, 201).Map(t)
	f.fields[name] = m["id"].(string)
	return m["id"].(string)
}

func (f *listFixture) create(t *testing.T, c *kit.Client, values map[string]any) map[string]any {
	t.Helper()
	return c.Do(t, "POST", f.path("/items"), map[string]any{"fieldValues": values}).Expect(t, 201).Map(t)
}

// list returns the items and meta of a listing with the given query parameters.
func (f *listFixture) list(t *testing.T, c *kit.Client, params map[string]string) ([]map[string]any, map[string]any) {
	t.Helper()
	q := url.Values{}
	for k, v := range params {
		q.Set(k, v)
	}
	r := c.Do(t, "GET", f.path("/items?"+q.Encode()), nil).Expect(t, 200)
	var items []map[string]any
	r.Into(t, &items)
	return items, r.Meta
}

func (f *listFixture) filter(t *testing.T, c *kit.Client, column, op string, value any) []map[string]any {
	t.Helper()
	cond := map[string]any{"column": column, "operator": op}
	if value != nil {
		cond["value"] = value
	}
	j, _ := json.Marshal(map[string]any{"logic": "and", "conditions": []any{cond}})
	items, _ := f.list(t, c, map[string]string{"filter": string(j), "limit": "500", "sort": "item_number:asc"})
	return items
}

// titles returns the title values of items in order.
func (f *listFixture) titles(items []map[string]any) []string {
	out := []string{}
	for _, it := range items {
		v, _ := it["field_values"].(map[string]any)[f.fields["title"]].(string)
		out = append(out, v)
	}
	return out
}

func (f *listFixture) value(it map[string]any, name string) any {
	return it["field_values"].(map[string]any)[f.fields[name]]
}

func urlq(s string) string { return url.QueryEscape(s) }

func adminID(t *testing.T, c *kit.Client) string {
	t.Helper()
	return c.Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)["id"].(string)
}

// isolate breaks an item's inheritance (copying the list's records) and then
// removes the records of principal, who can no longer see the item.
func (f *listFixture) isolate(t *testing.T, number int, principal string) {
	t.Helper()
	a := f.admin
	a.Do(t, "PATCH", f.pathf("/items/%d/permission-settings", number), map[string]any{"inheritFromParent": false}).Expect(t, 200)
	it := a.Do(t, "GET", f.pathf("/items/%d", number), nil).Expect(t, 200).Map(t)
	var recs []map[string]any
	a.Do(t, "GET", "/permissions?resourceType=list_item&resourceId="+it["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
	for _, r := range recs {
		if r["principalId"] == principal {
			a.Do(t, "DELETE", "/permissions/"+r["id"].(string), nil).Expect(t, 200)
		}
	}
}
