package groups_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/groups"
	"coreportal/internal/outbox"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
	"coreportal/internal/users"
)

// TestDomainGroups: the directory-sync operations maintain domain-linked
// groups that the HTTP interface refuses to change, and membership changes
// reach the permission engine at once.
func TestDomainGroups(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		b := bus.NewMemory()
		engine := acl.New(db, b)
		us := users.NewService(db, b)
		svc := groups.New(db, engine, us)
		var ids []string
		for _, l := range []string{"ann", "ben", "cat"} {
			id, err := us.UpsertDomainUser(ctx, users.DirectoryUser{ExternalID: "S-" + l, Login: l, DisplayName: l})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		again, err := us.UpsertDomainUser(ctx, users.DirectoryUser{ExternalID: "S-ann", Login: "other"})
		if err != nil || again != ids[0] {
			t.Fatalf("upsert by external id: %v %v", again, err)
		}
		gid, _, _, err := svc.UpsertDomainGroup(ctx, "CN=Staff", "Staff", "")
		if err != nil {
			t.Fatal(err)
		}
		if g2, created, changed, _ := svc.UpsertDomainGroup(ctx, "CN=Staff", "Staff renamed", "d"); g2 != gid || created || !changed {
			t.Fatal("a second upsert must find the group")
		}
		node := acl.Ref{Type: acl.Node, ID: uuid.NewString()}
		if err := engine.Register(ctx, node, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Grant(ctx, node, acl.PrincipalGroup, gid, acl.Add); err != nil {
			t.Fatal(err)
		}
		level := func(uid string) acl.Level {
			l, err := engine.Level(ctx, &auth.Principal{UserID: uid}, node)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		if _, err := svc.SetDomainMembers(ctx, gid, ids[:2], true); err != nil {
			t.Fatal(err)
		}
		if level(ids[0]) != acl.Add || level(ids[2]) != acl.None {
			t.Fatal("members after the first sync")
		}
		if _, err := svc.SetDomainMembers(ctx, gid, ids[1:], true); err != nil {
			t.Fatal(err)
		}
		if level(ids[0]) != acl.None || level(ids[2]) != acl.Add {
			t.Fatal("members after the second sync")
		}
		if changed, err := svc.SetDomainMembers(ctx, gid, ids[1:], true); err != nil || changed {
			t.Fatalf("an unchanged sync: changed %v, %v", changed, err)
		}
		checkMemberEvents(t, db, gid, ids)
		g, err := svc.Get(ctx, gid)
		if err != nil || g.GroupType != groups.DomainLinked || g.Name != "Staff renamed" || len(g.Members) != 2 {
			t.Fatalf("group %+v %v", g, err)
		}
		if err := svc.Delete(ctx, gid); !fault.Is(err, fault.CodeValidation) {
			t.Fatalf("HTTP-side delete of a domain group: %v", err)
		}
		if err := svc.DeleteDomainGroup(ctx, gid); err != nil {
			t.Fatal(err)
		}
		if level(ids[1]) != acl.None {
			t.Fatal("records of a deleted domain group still apply")
		}
	})
}

// checkMemberEvents: the syncs of TestDomainGroups emit one event per kind
// and call, naming every user concerned, and nothing when nothing changed.
func checkMemberEvents(t *testing.T, db *store.DB, gid string, ids []string) {
	t.Helper()
	evs, err := outbox.Pending(context.Background(), db, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		var p struct {
			GroupID string   `json:"groupId"`
			UserIDs []string `json:"userIds"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil || e.ResourceType != "group" || e.ResourceID != gid || p.GroupID != gid || e.ActorID != "" {
			t.Fatalf("event %+v (%v)", e, err)
		}
		got = append(got, e.Name+" "+strings.Join(p.UserIDs, ","))
	}
	first := slices.Clone(ids[:2])
	slices.Sort(first)
	want := []string{"group.memberAdded " + strings.Join(first, ","), "group.memberAdded " + ids[2], "group.memberRemoved " + ids[0]}
	if !slices.Equal(got, want) {
		t.Fatalf("membership events %q, want %q", got, want)
	}
}
