package test

import (
	"testing"

	"coreportal/test/kit"
)

// mkNode creates a node as c and returns its id.
func mkNode(t *testing.T, c *kit.Client, parent, slug string) string {
	t.Helper()
	body := map[string]any{"slug": slug, "title": "Node " + slug}
	if parent != "" {
		body["parentId"] = parent
	}
	return c.Do(t, "POST", "/nodes", body).Expect(t, 201).Map(t)["id"].(string)
}

// grant sets a permission record as the administrator.
func grant(t *testing.T, s *kit.Server, resType, resID, principalType, principalID, level string) string {
	t.Helper()
	r := s.Admin(t).Do(t, "POST", "/permissions", map[string]any{"resourceType": resType, "resourceId": resID,
		"principalType": principalType, "principalId": principalID, "permissionLevel": level}).Expect(t, 200)
	return r.Map(t)["id"].(string)
}

// levelOf asks /permissions/check as c.
func levelOf(t *testing.T, c *kit.Client, resType, resID string) any {
	t.Helper()
	return c.Do(t, "GET", "/permissions/check?resourceType="+resType+"&resourceId="+resID, nil).Expect(t, 200).Map(t)["permissionLevel"]
}
