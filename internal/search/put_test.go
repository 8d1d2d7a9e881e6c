package search

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestCreatedEntriesFollowTheRights: entries put with Doc.Created (a new
// item, a new file at a library's root: no chain lookup, a plain insert)
// are shown exactly as the acl engine decides, also after the resource or
// its container is isolated, and a later save of the resource replaces its
// entry on both databases.
func TestCreatedEntriesFollowTheRights(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		nodeID := f.node(f.node("", "corp"), "hr")
		nref := acl.Ref{Type: acl.Node, ID: nodeID}
		libID, listID := uuid.NewString(), uuid.NewString()
		lib := f.object(acl.Library, nref, Doc{Type: TypeLibrary, ID: libID, NodeID: nodeID, ContainerID: libID, Slug: "docs", Title: "library"})
		list := f.object(acl.List, nref, Doc{Type: TypeList, ID: listID, NodeID: nodeID, ContainerID: listID, Slug: "tasks", Title: "list"})
		created := func(t acl.Type, parent acl.Ref, d Doc) acl.Ref {
			d.Created = true
			return f.object(t, parent, d)
		}
		itemDoc := Doc{Type: TypeItem, ID: uuid.NewString(), NodeID: nodeID, ContainerID: listID, Slug: "tasks", Number: 1, Title: "item yak"}
		item := created(acl.ListItem, list, itemDoc)
		file := created(acl.File, lib, Doc{Type: TypeFile, ID: uuid.NewString(), NodeID: nodeID, ContainerID: libID, Slug: "docs", Number: 1, Title: "file yak"})
		refs := map[string]acl.Ref{"node": nref, "library": lib, "list": list, "item": item, "file": file}
		titles := map[string]string{"item": "item yak /corp/hr/lists/tasks?item=1", "file": "file yak /corp/hr/libraries/docs?file=1"}

		for _, tc := range []struct {
			name     string
			isolated []string
			grants   []string
			want     []string
		}{
			{"nothing", nil, nil, nil},
			{"grant on the node", nil, []string{"node"}, []string{"file", "item"}},
			{"isolated list, grant on the node", []string{"list"}, []string{"node"}, []string{"file"}},
			{"isolated list, grant on it", []string{"list"}, []string{"list"}, []string{"item"}},
			{"isolated item, grant on the list", []string{"item"}, []string{"list"}, nil},
			{"isolated item, grant on it", []string{"item"}, []string{"item"}, []string{"item"}},
			{"isolated file, grant on the node", []string{"file"}, []string{"node"}, []string{"item"}},
			{"isolated library, grant on the file", []string{"library"}, []string{"file"}, []string{"file"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f.t = t
				f.underRights(refs, tc.isolated, tc.grants, func() {
					want := []string{}
					for _, n := range tc.want {
						want = append(want, titles[n])
					}
					slices.Sort(want)
					for _, n := range []string{"item", "file"} { // the case table agrees with the engine
						lvl, err := f.acl.Level(ctx, f.reader, refs[n])
						if err != nil {
							t.Fatal(err)
						}
						if (lvl >= acl.View) != slices.Contains(tc.want, n) {
							t.Fatalf("the acl engine gives %s level %d", n, lvl)
						}
					}
					if got := f.search(f.reader, "yak"); !slices.Equal(got, want) {
						t.Errorf("search shows %q, want %q", got, want)
					}
				})
			})
		}

		t.Run("a later save replaces the entry", func(t *testing.T) {
			f.t = t
			itemDoc.Title = "item gnu"
			f.tx(func(ctx context.Context) error { return f.svc.Put(ctx, itemDoc) })
			if got := f.search(f.admin, "yak"); !slices.Equal(got, []string{titles["file"]}) {
				t.Fatalf("old title still found: %q", got)
			}
			if got := f.search(f.admin, "gnu"); !slices.Equal(got, []string{"item gnu /corp/hr/lists/tasks?item=1"}) {
				t.Fatalf("new title: %q", got)
			}
		})
	})
}
