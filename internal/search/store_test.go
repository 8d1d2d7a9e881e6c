package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// fixture is a node tree, a library with folders and a list registered in
// the acl registry, with a search service over them.
type fixture struct {
	t      *testing.T
	db     *store.DB
	acl    *acl.Engine
	svc    *Service
	reader *auth.Principal
	admin  *auth.Principal
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	e := acl.New(db, bus.NewMemory())
	f := &fixture{t: t, db: db, acl: e, svc: New(db, e),
		reader: &auth.Principal{UserID: uuid.NewString()}, admin: &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}}
	e.OnRescope(f.svc.Rescope)
	return f
}

func (f *fixture) tx(fn func(ctx context.Context) error) {
	f.t.Helper()
	if err := f.db.InTx(context.Background(), func(ctx context.Context, _ *store.Tx) error { return fn(ctx) }); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) node(parent, slug string) string {
	f.t.Helper()
	id := uuid.NewString()
	var p any
	var pref *acl.Ref
	if parent != "" {
		p, pref = parent, &acl.Ref{Type: acl.Node, ID: parent}
	}
	f.tx(func(ctx context.Context) error {
		now := time.Now().UTC()
		if _, err := f.db.W(ctx).ExecContext(ctx, "INSERT INTO nodes (id, parent_id, slug, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
			id, p, slug, slug, now, now); err != nil {
			return err
		}
		if err := f.acl.Register(ctx, acl.Ref{Type: acl.Node, ID: id}, pref); err != nil {
			return err
		}
		return f.svc.Put(ctx, Doc{Type: TypeNode, ID: id, NodeID: id, ContainerID: id, Title: "node " + slug})
	})
	return id
}

// object registers a resource under parent and indexes it as doc.
func (f *fixture) object(t acl.Type, parent acl.Ref, d Doc) acl.Ref {
	f.t.Helper()
	ref := acl.Ref{Type: t, ID: d.ID}
	f.tx(func(ctx context.Context) error {
		if err := f.acl.Register(ctx, ref, &parent); err != nil {
			return err
		}
		return f.svc.Put(ctx, d)
	})
	return ref
}

func (f *fixture) search(p *auth.Principal, q string) []string {
	f.t.Helper()
	st := f.svc.st
	defer func(c int, first bool) { st.countCap, st.passFirst = c, first }(st.countCap, st.passFirst)
	// rows only: one pass reads the matches
	st.passFirst = true
	out := f.searchOnce(p, q)
	// rows only, a pass of one match: the total is counted, the page walked
	st.countCap = 1
	if got := f.searchOnce(p, q); !slices.Equal(got, out) {
		f.t.Fatalf("%q counted from rows: %v, one pass read %v", q, got, out)
	}
	// PostgreSQL: from the bitmaps, with the entries pending and folded
	st.passFirst = false
	for _, fold := range []bool{false, true} {
		if fold {
			if err := f.svc.FoldBits(context.Background()); err != nil {
				f.t.Fatal(err)
			}
		}
		if got := f.searchOnce(p, q); !slices.Equal(got, out) {
			f.t.Fatalf("%q from the bitmaps (folded %v): %v, one pass read %v", q, fold, got, out)
		}
	}
	return out
}

// searchOnce runs a search and returns the hits' titles and paths, sorted;
// the total must be their number.
func (f *fixture) searchOnce(p *auth.Principal, q string) []string {
	f.t.Helper()
	found, err := f.svc.Search(context.Background(), p, Request{Q: q, Page: 1, Limit: 100})
	if err != nil {
		f.t.Fatal(err)
	}
	if found.Total != len(found.Hits) {
		f.t.Fatalf("%q: total %d, %d hits", q, found.Total, len(found.Hits))
	}
	out := []string{}
	for _, h := range found.Hits {
		out = append(out, h.Title+" "+h.Path)
	}
	slices.Sort(out)
	return out
}

func (f *fixture) grant(ref acl.Ref, lvl acl.Level) string {
	f.t.Helper()
	id, err := f.acl.Grant(context.Background(), ref, acl.PrincipalUser, f.reader.UserID, lvl)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *fixture) isolate(ref acl.Ref, isolated bool) {
	f.t.Helper()
	if err := f.acl.SetInherits(context.Background(), ref, !isolated); err != nil {
		f.t.Fatal(err)
	}
	// drop what breaking inheritance copied: the cases below grant explicitly
	if isolated {
		es, err := f.acl.Entries(context.Background(), ref)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, e := range es {
			if err := f.acl.Revoke(context.Background(), e.ID); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

// underRights isolates the named objects and grants the reader view on the
// granted ones, runs check, then revokes and restores inheritance again.
func (f *fixture) underRights(refs map[string]acl.Ref, isolated, grants []string, check func()) {
	f.t.Helper()
	for _, n := range isolated {
		f.isolate(refs[n], true)
	}
	var granted []string
	for _, n := range grants {
		granted = append(granted, f.grant(refs[n], acl.View))
	}
	check()
	for _, g := range granted {
		if err := f.acl.Revoke(context.Background(), g); err != nil {
			f.t.Fatal(err)
		}
	}
	for _, n := range isolated {
		f.isolate(refs[n], false)
	}
}

// TestRightsFollowTheACLChain: for every arrangement of isolation and grants
// along library → folder → sub-folder → file and list → item, GET /search
// shows an entry exactly when the acl engine gives the reader view on it.
func TestRightsFollowTheACLChain(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		root := f.node("", "corp")
		nodeID := f.node(root, "hr")
		nref := acl.Ref{Type: acl.Node, ID: nodeID}
		libID, listID := uuid.NewString(), uuid.NewString()
		lib := f.object(acl.Library, nref, Doc{Type: TypeLibrary, ID: libID, NodeID: nodeID, ContainerID: libID, Slug: "docs", Title: "library"})
		list := f.object(acl.List, nref, Doc{Type: TypeList, ID: listID, NodeID: nodeID, ContainerID: listID, Slug: "tasks", Title: "list"})
		file := func(parent acl.Ref, n int64, title string) acl.Ref {
			return f.object(acl.File, parent, Doc{Type: TypeFile, ID: uuid.NewString(), NodeID: nodeID, ContainerID: libID, Slug: "docs", Number: n, Title: title + " zebra"})
		}
		outer := file(lib, 1, "outer")
		inner := file(outer, 2, "inner")
		doc := file(inner, 3, "doc")
		item := f.object(acl.ListItem, list, Doc{Type: TypeItem, ID: uuid.NewString(), NodeID: nodeID, ContainerID: listID, Slug: "tasks", Number: 7, Title: "item zebra"})
		refs := map[string]acl.Ref{"node": nref, "library": lib, "list": list, "outer": outer, "inner": inner, "doc": doc, "item": item}
		titles := map[string]string{"outer": "outer zebra /corp/hr/libraries/docs?file=1", "inner": "inner zebra /corp/hr/libraries/docs?file=2",
			"doc": "doc zebra /corp/hr/libraries/docs?file=3", "item": "item zebra /corp/hr/lists/tasks?item=7"}

		for _, tc := range []struct {
			name     string
			isolated []string
			grants   []string
		}{
			{"nothing", nil, nil},
			{"grant on the node", nil, []string{"node"}},
			{"isolated file, grant on its folder", []string{"doc"}, []string{"inner"}},
			{"isolated outer folder, grant on the sub-folder", []string{"outer"}, []string{"inner"}},
			{"isolated outer folder, grant on the library", []string{"outer"}, []string{"library"}},
			{"isolated outer folder, grant on it", []string{"outer"}, []string{"outer"}},
			{"isolated sub-folder, grant on the outer folder", []string{"inner"}, []string{"outer"}},
			{"isolated library, grant on the outer folder", []string{"library"}, []string{"outer"}},
			{"isolated library, grant on the node", []string{"library"}, []string{"node"}},
			{"isolated item, grant on the list", []string{"item"}, []string{"list"}},
			{"isolated item, grant on it", []string{"item"}, []string{"item"}},
			{"isolated list, grant on the node", []string{"list"}, []string{"node"}},
			{"isolated list and item, grant on the list", []string{"list", "item"}, []string{"list"}},
			{"two isolated folders, grant on the file", []string{"outer", "inner"}, []string{"doc"}},
			{"grant on the outer folder", nil, []string{"outer"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f.t = t
				f.underRights(refs, tc.isolated, tc.grants, func() {
					want := []string{}
					for _, n := range []string{"outer", "inner", "doc", "item"} {
						lvl, err := f.acl.Level(ctx, f.reader, refs[n])
						if err != nil {
							t.Fatal(err)
						}
						if lvl >= acl.View {
							want = append(want, titles[n])
						}
					}
					slices.Sort(want)
					if got := f.search(f.reader, "zebra"); !slices.Equal(got, want) {
						t.Errorf("search shows %q, the acl engine %q", got, want)
					}
					if got := f.search(f.admin, "zebra"); len(got) != 4 {
						t.Errorf("admin sees %q", got)
					}
				})
			})
		}

		t.Run("moving a folder out of an isolated one", func(t *testing.T) {
			f.t = t
			f.isolate(outer, true)
			g := f.grant(lib, acl.View)
			if got := f.search(f.reader, "zebra"); len(got) != 0 { // everything hangs under the isolated outer folder
				t.Fatalf("before the move %q", got)
			}
			if err := f.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return f.acl.Move(ctx, inner, &lib) }); err != nil {
				t.Fatal(err)
			}
			want := []string{titles["doc"], titles["inner"]}
			if got := f.search(f.reader, "zebra"); !slices.Equal(got, want) {
				t.Fatalf("after the move %q, want %q", got, want)
			}
			_ = f.acl.Revoke(ctx, g)
		})
	})
}

// TestPathsFollowRenamesAndMoves: paths are composed from the current node
// slugs and the container slug, so renaming or moving a node and renaming a
// container show at once.
func TestPathsFollowRenamesAndMoves(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		a := f.node("", "a")
		b := f.node(a, "b")
		other := f.node("", "other")
		listID := uuid.NewString()
		list := f.object(acl.List, acl.Ref{Type: acl.Node, ID: b}, Doc{Type: TypeList, ID: listID, NodeID: b, ContainerID: listID, Slug: "tasks", Title: "list walrus"})
		f.object(acl.ListItem, list, Doc{Type: TypeItem, ID: uuid.NewString(), NodeID: b, ContainerID: listID, Slug: "tasks", Number: 3, Title: "item walrus"})
		check := func(want ...string) {
			t.Helper()
			slices.Sort(want)
			if got := f.search(f.admin, "walrus"); !slices.Equal(got, want) {
				t.Fatalf("paths %q, want %q", got, want)
			}
		}
		check("list walrus /a/b/lists/tasks", "item walrus /a/b/lists/tasks?item=3")
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W(ctx).ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec("UPDATE nodes SET slug = ? WHERE id = ?", "bee", b)
		check("list walrus /a/bee/lists/tasks", "item walrus /a/bee/lists/tasks?item=3")
		exec("UPDATE nodes SET parent_id = ? WHERE id = ?", other, b)
		check("list walrus /other/bee/lists/tasks", "item walrus /other/bee/lists/tasks?item=3")
		f.tx(func(ctx context.Context) error {
			ok, err := Rename(ctx, f.svc, listID, "todo")
			if !ok {
				return errors.New("the service renames")
			}
			return err
		})
		check("list walrus /other/bee/lists/todo", "item walrus /other/bee/lists/todo?item=3")
	})
}

// TestCrawlReportsProgressAndResumes: a crawl writes its progress after
// batches (processed/total per source, checkpoint) and, after a failure,
// resumes from the checkpoint.
func TestCrawlReportsProgressAndResumes(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		nodeID := f.node("", "n")
		listID := uuid.NewString()
		list := f.object(acl.List, acl.Ref{Type: acl.Node, ID: nodeID}, Doc{Type: TypeList, ID: listID, NodeID: nodeID, ContainerID: listID, Slug: "l", Title: "list"})
		var docs []Doc
		for i := range 9 {
			d := Doc{Type: TypeItem, ID: uuid.NewString(), NodeID: nodeID, ContainerID: listID, Slug: "l", Number: int64(i + 1), Title: fmt.Sprintf("crawled otter %d", i)}
			f.tx(func(ctx context.Context) error {
				return f.acl.Register(ctx, acl.Ref{Type: acl.ListItem, ID: d.ID}, &list)
			})
			docs = append(docs, d)
		}
		failAt := 6
		page := func(_ context.Context, after string, limit int) ([]Doc, string, error) {
			from := 0
			if after != "" {
				fmt.Sscan(after, &from)
			}
			if from >= failAt {
				return nil, "", errors.New("crash")
			}
			to := min(from+limit, len(docs))
			next := ""
			if to < len(docs) {
				next = fmt.Sprint(to)
			}
			return docs[from:to], next, nil
		}
		f.svc.AddSource(Source{Name: "items", Page: page, Count: func(context.Context) (int, error) { return len(docs), nil }})
		f.svc.SetCrawlBatch(2)
		f.svc.progressEvery = 0
		var reports []CrawlResult
		f.svc.ReportProgress(func(_ context.Context, v any) error {
			r := v.(CrawlResult)
			r.Sources = slices.Clone(r.Sources)
			reports = append(reports, r)
			return nil
		})
		if _, err := f.svc.Crawl(ctx); err == nil {
			t.Fatal("the crawl did not fail")
		}
		var processed []int
		for _, r := range reports {
			if r.Finished || r.Sources[0].Total == nil || *r.Sources[0].Total != 9 {
				t.Fatalf("report %+v", r)
			}
			processed = append(processed, r.Sources[0].Processed)
		}
		if !slices.Equal(processed, []int{0, 2, 4, 6}) || reports[len(reports)-1].Checkpoint != "0:6" {
			t.Fatalf("progress %v, last %+v", processed, reports[len(reports)-1])
		}
		if got := f.search(f.admin, "otter"); len(got) != 6 {
			t.Fatalf("after the crash %d entries", len(got))
		}
		failAt = 100
		res, err := f.svc.Crawl(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Resumed || !res.Finished || res.Indexed != 3 || res.Checkpoint != "" || !res.Sources[0].Done {
			t.Fatalf("resumed crawl %+v", res)
		}
		if got := f.search(f.admin, "otter"); len(got) != 9 {
			t.Fatalf("after the resumed crawl %d entries", len(got))
		}
		st, err := f.svc.Stats(ctx)
		if err != nil || st.LastCrawlAt == nil {
			t.Fatalf("stats %+v %v", st, err)
		}
	})
}

// TestPunctuatedWordsMatchOnBothDatabases: file names, addresses and numbers
// with dots, slashes, @ and apostrophes are found by each of their parts and
// by the whole, the same way on SQLite and PostgreSQL.
func TestPunctuatedWordsMatchOnBothDatabases(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		n := f.node("", "docs")
		node := acl.Ref{Type: acl.Node, ID: n}
		for _, title := range []string{"budget.xlsx", "Annual-Report_2025 final.docx", "node.js user@example.com", "http://example.com/path 3.14159 foo/bar", "don't panic"} {
			id := uuid.NewString()
			f.object(acl.List, node, Doc{Type: TypeList, ID: id, NodeID: n, ContainerID: id, Slug: "l" + id[:8], Title: title})
		}
		for _, c := range []struct {
			q    string
			want int
		}{
			{"budget", 1}, {"xlsx", 1}, {"budget.xlsx", 1}, {"final", 1}, {"report", 1}, {"2025", 1},
			{"node.js", 1}, {"js", 1}, {"example", 2}, {"user@example.com", 1}, {"14159", 1}, {"3.14159", 1},
			{"foo/bar", 1}, {"bar", 1}, {"panic", 1}, {"budg*", 1}, {`"final docx"`, 1},
		} {
			if got := f.search(f.admin, c.q); len(got) != c.want {
				t.Errorf("%s: %q found %v, want %d hits", db.Dialect, c.q, got, c.want)
			}
		}
	})
}
