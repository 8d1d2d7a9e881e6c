package test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/directory/slapdtest"
	"coreportal/test/kit"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func avatar(t *testing.T, c *kit.Client, id string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", c.S.URL+"/api/v1/users/"+id+"/avatar", nil)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.S.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

func chainLogins(t *testing.T, c *kit.Client, id, key string) []string {
	t.Helper()
	var out []string
	for _, n := range c.Do(t, "GET", "/users/"+id+"/org-"+key, nil).Expect(t, 200).Map(t)[key].([]any) {
		out = append(out, n.(map[string]any)["login"].(string))
	}
	return out
}

func testBigSync(t *testing.T, s *kit.Server, admin *kit.Client) {
	r := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded"))
	if r.Users.Seen != 1000 || r.Users.Created != 1000 || r.Errors != 0 || r.Groups.Created != 20 || r.Photos.Written != 250 ||
		r.Users.ManagersChanged != 999 || r.Users.Deactivated != 0 {
		t.Fatalf("first sync %+v", r)
	}
	u12 := userByLogin(t, admin, "user0012")
	u1 := userByLogin(t, admin, "user0001")
	attrs, _ := u12["directory_attrs"].(map[string]any)
	if u12["auth_source"] != "domain" || !uuidRE.MatchString(u12["external_id"].(string)) || u12["email"] != "user0012@example.org" ||
		u12["display_name"] != "User user0012" || attrs["title"] != "Engineer 5" || attrs["department"] != "Dept 2" ||
		u12["manager_user_id"] != u1["id"] || u12["has_avatar"] != true {
		t.Fatalf("user0012 %v", u12)
	}
	schema := map[string]string{}
	for _, a := range u12["attribute_schema"].([]any) {
		m := a.(map[string]any)
		schema[m["key"].(string)] = m["ldapAttr"].(string)
	}
	if schema["login"] != "uid" || schema["thumbnailPhoto"] != "jpegPhoto" || schema["department"] != "departmentNumber" || schema["room"] != "roomNumber" {
		t.Fatalf("attribute_schema %v", u12["attribute_schema"])
	}
	viewer, _ := s.CreateUser(t, "orgviewer", false)
	pr := viewer.Do(t, "GET", "/users/"+u12["id"].(string)+"/profile", nil).Expect(t, 200)
	p := pr.Map(t)
	card, _ := p["card_fields"].(map[string]any)
	if !bytes.Contains(pr.Raw, []byte(`"card_fields":{"title":"Engineer 5","department":"Dept 2","email":"user0012@example.org","telephoneNumber":"+1 555 0012"}`)) {
		t.Fatalf("card_fields not in personCardVisibleFields order: %s", pr.Raw)
	}
	if len(card) != 4 || card["title"] != "Engineer 5" || card["department"] != "Dept 2" || card["email"] != "user0012@example.org" ||
		card["telephoneNumber"] != "+1 555 0012" || p["has_avatar"] != true || p["manager_user_id"] != u1["id"] {
		t.Fatalf("profile %v", p)
	}
	status, ct, body := avatar(t, viewer, u12["id"].(string))
	if status != 200 || ct != "image/jpeg" || !bytes.Equal(body, slapdtest.Photo("user0012")) {
		t.Fatalf("avatar %d %s %q", status, ct, body)
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/users/"+u12["id"].(string)+"/avatar", nil)
	req.Header.Set("Authorization", "Bearer "+viewer.Token)
	req.Header.Set("If-None-Match", etag)
	resp, err := s.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 304 || resp.Header.Get("ETag") != etag || resp.Header.Get("Cache-Control") == "" {
		t.Fatalf("conditional avatar: %d %v", resp.StatusCode, resp.Header)
	}
	if status, _, _ := avatar(t, viewer, u1["id"].(string)); status != 404 {
		t.Fatalf("avatar of a user without photo: %d", status)
	}
	u123 := userByLogin(t, admin, "user0123")
	if got := chainLogins(t, viewer, u123["id"].(string), "chain"); len(got) != 4 || got[0] != "user0000" || got[1] != "user0001" || got[2] != "user0012" || got[3] != "user0123" {
		t.Fatalf("org-chain %v", got)
	}
	if got := chainLogins(t, viewer, u1["id"].(string), "children"); len(got) != 10 || got[0] != "user0010" {
		t.Fatalf("org-children %v", got)
	}
	loop := userByLogin(t, admin, "user0999")
	if got := chainLogins(t, viewer, loop["id"].(string), "chain"); len(got) != 2 {
		t.Fatalf("org-chain through a manager loop %v", got)
	}
	g0 := groupByName(t, admin, "grp000")
	if g0 == nil || g0["group_type"] != "domain_linked" {
		t.Fatalf("grp000 %v", g0)
	}
	m := memberLogins(g0)
	if len(m) != 100 || !m["user0000"] || !m["user0001"] || !m["user0021"] || m["user0002"] {
		t.Fatalf("grp000 has %d members (nested grp001 expanded?)", len(m))
	}
	gid := g0["id"].(string)
	admin.Do(t, "PATCH", "/groups/"+gid, map[string]any{"name": "x"}).Expect(t, 400, "VALIDATION_ERROR")
	admin.Do(t, "DELETE", "/groups/"+gid, nil).Expect(t, 400, "VALIDATION_ERROR")
	admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": u1["id"]}).Expect(t, 400, "VALIDATION_ERROR")
	admin.Do(t, "DELETE", "/groups/"+gid+"/members/"+u1["id"].(string), nil).Expect(t, 400, "VALIDATION_ERROR")
	portal := admin.Do(t, "POST", "/groups", map[string]any{"name": "Portal staff"}).Expect(t, 201).Map(t)
	admin.Do(t, "POST", "/groups/"+portal["id"].(string)+"/members", map[string]any{"userId": u12["id"]}).Expect(t, 200)

	// an unchanged directory: nothing written
	r = resultOf(t, runSync(t, admin, map[string]any{"deactivateMissing": true}, "succeeded"))
	if r.Users.Unchanged != 1000 || r.Users.Created+r.Users.Updated+r.Users.Deactivated+r.Users.ManagersChanged != 0 ||
		r.Photos.Written+r.Photos.Removed != 0 || r.Groups.Unchanged != 20 || r.Groups.Created+r.Groups.Updated+r.Groups.MembershipChanged+r.Groups.Removed != 0 || r.Errors != 0 {
		t.Fatalf("second sync %+v", r)
	}
	if again := userByLogin(t, admin, "user0012"); again["updated_at"] != u12["updated_at"] {
		t.Fatalf("user rewritten: %v -> %v", u12["updated_at"], again["updated_at"])
	}
	pg := admin.Do(t, "GET", "/groups/"+portal["id"].(string), nil).Expect(t, 200).Map(t)
	if pg["group_type"] != "portal" || len(memberLogins(pg)) != 1 {
		t.Fatalf("portal group touched by the sync: %v", pg)
	}
}

func testDomainSignIn(t *testing.T, s *kit.Server, admin *kit.Client) {
	login := func(user, password, authType string) *kit.Response {
		body := map[string]any{"login": user, "password": password}
		if authType != "" {
			body["authType"] = authType
		}
		return s.Anon().Do(t, "POST", "/auth/login", body)
	}
	r := login("user0003", slapdtest.Password("user0003"), "domain").Expect(t, 200)
	var d struct {
		Token string
		User  map[string]any
	}
	r.Into(t, &d)
	synced := userByLogin(t, admin, "user0003")
	if d.User["auth_source"] != "domain" || d.User["id"] != synced["id"] {
		t.Fatalf("domain sign-in user %v (synced %v)", d.User, synced["id"])
	}
	me := (&kit.Client{S: s, Token: d.Token, HTTP: http.DefaultClient}).Do(t, "GET", "/auth/me", nil).Expect(t, 200).Map(t)
	if me["login"] != "user0003" {
		t.Fatalf("me %v", me)
	}
	login("user0003", "wrong", "domain").Expect(t, 401, "UNAUTHORIZED")
	login("user0003", "", "domain").Expect(t, 400, "VALIDATION_ERROR")
	login("user0003", slapdtest.Password("user0003"), "local").Expect(t, 401, "UNAUTHORIZED")
	login("nobody", "x", "domain").Expect(t, 401, "UNAUTHORIZED")
	for _, inj := range []string{"*)(uid=*", "*", `\00`, "user0003*", "user000*", "user0004)(uid=*", "*)(|(objectClass=*"} {
		// unescaped, "user0003*" would match user0003 alone and the right password would sign in
		login(inj, slapdtest.Password("user0003"), "domain").Expect(t, 401, "UNAUTHORIZED")
	}
	u7 := userByLogin(t, admin, "user0007")
	admin.Do(t, "PATCH", "/admin/users/"+u7["id"].(string), map[string]any{"isActive": false}).Expect(t, 200)
	login("user0007", slapdtest.Password("user0007"), "domain").Expect(t, 401, "UNAUTHORIZED")
	for i := 0; i < 5; i++ {
		login("user0100", "bad", "domain").Expect(t, 401, "UNAUTHORIZED")
	}
	login("user0100", slapdtest.Password("user0100"), "domain").Expect(t, 429, "RATE_LIMITED")
}

// TestDirectorySyncMembershipWebhooks: a sync that adds a user to a
// domain-linked group and drops another delivers group.memberAdded and
// group.memberRemoved to webhook receivers, once each, without an actor; a
// sync that changes nothing delivers nothing.
func TestDirectorySyncMembershipWebhooks(t *testing.T) {
	t.Parallel()
	needSlapd(t)
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		seed := slapdtest.Seed{Users: 12, Groups: 3}
		d := ownSlapd(t, seed)
		admin := s.Admin(t)
		admin.Do(t, "PUT", "/admin/settings/ldap", ldapConnection(d)).Expect(t, 200)
		admin.Do(t, "PUT", "/admin/settings/ldap-sync", openLDAPSync(nil)).Expect(t, 200)
		sink := newHookSink(t, 200)
		addHook(t, admin, "group.memberAdded", sink.srv.URL, nil)
		addHook(t, admin, "group.memberRemoved", sink.srv.URL, nil)
		if r := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Groups.Created != 3 || r.Errors != 0 {
			t.Fatalf("first sync %+v", r)
		}
		// the first sync fills each new group: one memberAdded per group
		for deadline := time.Now().Add(2 * time.Second); len(sink.hits()) < 3 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		from := len(sink.hits())
		if from != 3 {
			t.Fatalf("first sync: %d deliveries, want 3: %+v", from, sink.hits())
		}
		gid := groupByName(t, admin, "grp002")["id"].(string)
		joins, leaves := userByLogin(t, admin, "user0003")["id"], userByLogin(t, admin, "user0005")["id"]

		// grp002 holds users 2, 5, 8 and 11: user0003 joins, user0005 leaves
		m := ldap.NewModifyRequest(slapdtest.GroupDN(2), nil)
		m.Add("member", []string{seed.UserDN(3)})
		m.Delete("member", []string{seed.UserDN(5)})
		if err := ldapAdmin(t, d).Modify(m); err != nil {
			t.Fatal(err)
		}
		if r := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Groups.MembershipChanged != 1 || r.Errors != 0 {
			t.Fatalf("sync after the change %+v", r)
		}
		want := map[string]any{"group.memberAdded": joins, "group.memberRemoved": leaves}
		for ev, user := range want {
			waitMembership(t, sink, from, ev, gid, user)
		}
		if r := resultOf(t, runSync(t, admin, map[string]any{}, "succeeded")); r.Groups.MembershipChanged != 0 {
			t.Fatalf("unchanged sync %+v", r)
		}
		time.Sleep(500 * time.Millisecond)
		if hits := sink.hits()[from:]; len(hits) != 2 {
			t.Fatalf("want one delivery per change, got %d: %+v", len(hits), hits)
		}
	}, "CORE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1")
}

// waitMembership waits (2 s) for a signed delivery of event after the first
// from hits, naming exactly user in group gid, caused by the system (no actor).
func waitMembership(t *testing.T, sink *hookSink, from int, event, gid string, user any) {
	t.Helper()
	hit := sink.waitFrom(t, event, from, 2*time.Second)
	data, _ := hit.body["data"].(map[string]any)
	res, _ := hit.body["resource"].(map[string]any)
	ids, _ := data["userIds"].([]any)
	if !hit.signed || hit.body["actor"] != nil || res["type"] != "group" || res["id"] != gid || data["groupId"] != gid ||
		!slices.Equal(ids, []any{user}) {
		t.Fatalf("%s delivery %+v", event, hit)
	}
}
