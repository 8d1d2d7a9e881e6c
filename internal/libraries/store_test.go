package libraries

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/bus"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
	"coreportal/internal/users"
	"coreportal/internal/web"
)

// memBin records recycle-bin entries for the store tests.
type memBin struct{ entries []BinEntry }

func (b *memBin) Add(_ context.Context, e BinEntry) (string, error) {
	b.entries = append(b.entries, e)
	return "entry", nil
}
func (b *memBin) PurgeWhere(context.Context, string, string) error { return nil }

// TestFolderTree runs the folder tree SQL (ancestors, subtree, trash and
// restore, name order) on both databases through the service.
func TestFolderTree(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		env := newTestEnv(t, db)
		admin, engine, ns, blobs := env.admin, env.engine, env.nodes, env.blobs
		bin := &memBin{}
		s := NewService(db, engine, ns, blobs, 1<<20, bin, nil)
		l, err := s.Create(ctx, admin, NewLibrary{NodeID: env.nodeID, Title: "Docs", Slug: "docs"})
		if err != nil {
			t.Fatal(err)
		}
		mk := func(parent int64, name string) FileOut {
			t.Helper()
			f, err := s.CreateFolder(ctx, admin, l.ID, NewFolder{Name: name, ParentID: itoa(parent)})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		a := mk(0, "a")
		ab := mk(a.ID, "b")
		abc := mk(ab.ID, "c")
		up, err := s.st.ancestors(ctx, l.ID, abc.ID)
		if err != nil || !reflect.DeepEqual(up, []int64{abc.ID, ab.ID, a.ID}) {
			t.Fatalf("ancestors %v %v", up, err)
		}
		if _, _, err := s.Upload(ctx, admin, l.ID, itoa(ab.ID), "x.txt", "text/plain", strings.NewReader("x"), nil); err != nil {
			t.Fatal(err)
		}
		tree, err := s.st.subtree(ctx, l.ID, ab.ID)
		if err != nil || len(tree) != 3 {
			t.Fatalf("subtree %d %v", len(tree), err)
		}
		if _, err := s.DeleteFile(ctx, admin, l.ID, itoa(ab.ID)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.File(ctx, admin, l.ID, itoa(abc.ID)); err == nil {
			t.Fatal("a file below a deleted folder is still readable")
		}
		mk(a.ID, "B") // the name is free again while the folder is in the bin
		if err := s.RestoreFile(ctx, bin.entries[0].Payload); err == nil {
			t.Fatal("restore over a taken name accepted")
		}
		files, _, err := s.Files(ctx, admin, l.ID, ListQuery{ParentID: itoa(a.ID), Page: pageOf(1, 10)})
		if err != nil || len(files) != 1 || files[0].Name != "B" {
			t.Fatalf("folder a: %v %v", files, err)
		}
	})
}

func itoa(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func pageOf(page, limit int) web.PageQuery { return web.PageQuery{Page: page, Limit: limit} }

// testEnv is what store tests of the service need around it: a bootstrap
// administrator, the acl engine, a root node and a local blob folder.
type testEnv struct {
	admin  *auth.Principal
	engine *acl.Engine
	nodes  *nodes.Service
	nodeID string
	blobs  *blob.Local
}

func newTestEnv(t *testing.T, db *store.DB) testEnv {
	t.Helper()
	ctx := context.Background()
	b := bus.NewMemory()
	t.Cleanup(func() { b.Close() })
	us := users.NewService(db, b)
	if _, err := us.Bootstrap(ctx, "admin", "admin-password-1"); err != nil {
		t.Fatal(err)
	}
	u, err := us.AccountByLogin(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	admin := &auth.Principal{UserID: u.ID, Login: "admin", IsAdmin: true}
	engine := acl.New(db, b)
	ns := nodes.New(db, engine)
	n, err := ns.Create(ctx, admin, nodes.NewNode{Slug: "root", Title: "Root"})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return testEnv{admin: admin, engine: engine, nodes: ns, nodeID: n.ID, blobs: blobs}
}
