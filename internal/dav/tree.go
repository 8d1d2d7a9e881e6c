package dav

import (
	"context"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/libraries"
	"coreportal/internal/nodes"
)

// Kinds of resource in the tree: / lists the top nodes; a node lists its
// libraries and child nodes (by slug; a library wins over a child node of
// the same slug); a library and its folders list files and folders by name.
const (
	kindRoot = iota
	kindNode
	kindLibrary
	kindFile
)

// res is one resolved path.
type res struct {
	kind    int
	name    string // last path segment ("" at the root)
	node    *nodes.Node
	lib     *libraries.Library
	entry   libraries.Entry // kindFile
	chain   []string        // lock ids from the library down to this resource
	modTime time.Time
}

// id is the resource's lock id: the library id or the file guid.
func (r *res) id() string {
	switch r.kind {
	case kindLibrary:
		return r.lib.ID
	case kindFile:
		return r.entry.GUID
	case kindNode:
		return "node:" + r.node.ID
	}
	return "root"
}

// folderNo is the folder number of a library root or folder.
func (r *res) folderNo() int64 {
	if r.kind == kindFile {
		return r.entry.Number
	}
	return 0
}

func (r *res) isDir() bool { return r.kind != kindFile || r.entry.IsFolder }

// info is the os.FileInfo of a resource (with its content type and ETag).
type info struct{ r *res }

func (i info) Name() string {
	if i.r.name == "" {
		return "/"
	}
	return i.r.name
}

func (i info) Size() int64 {
	if i.r.kind == kindFile && !i.r.entry.IsFolder {
		return i.r.entry.Size
	}
	return 0
}

func (i info) Mode() fs.FileMode {
	if i.r.isDir() {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

func (i info) ModTime() time.Time { return i.r.modTime }
func (i info) IsDir() bool        { return i.r.isDir() }
func (i info) Sys() any           { return nil }

// ContentType is the stored type (webdav.ContentTyper: no sniffing).
func (i info) ContentType(context.Context) (string, error) {
	if i.r.kind == kindFile && !i.r.entry.IsFolder && i.r.entry.MimeType != "" {
		return i.r.entry.MimeType, nil
	}
	return "application/octet-stream", nil
}

// ETag is the current version id (webdav.ETager), as the API's download.
func (i info) ETag(context.Context) (string, error) {
	switch {
	case i.r.kind == kindFile && !i.r.entry.IsFolder:
		return `"` + i.r.entry.VersionID + `"`, nil
	case i.r.kind == kindFile:
		return `"` + i.r.entry.GUID + "-" + i.r.modTime.Format("20060102150405.000000000") + `"`, nil
	}
	return `"` + i.r.id() + `"`, nil
}

// split cleans a DAV path into its segments.
func split(name string) []string {
	name = path.Clean("/" + name)
	if name == "/" {
		return nil
	}
	return strings.Split(name[1:], "/")
}

// visibleNodes reads (once per request) the nodes the caller can view.
func (f *FS) visibleNodes(ctx context.Context) ([]*nodes.Node, error) {
	if f.nodeList == nil {
		ns, err := f.svc.Nodes.List(ctx, f.p)
		if err != nil {
			return nil, err
		}
		f.nodeList = ns
	}
	return f.nodeList, nil
}

func (f *FS) childNodes(ctx context.Context, parent string) ([]*nodes.Node, error) {
	ns, err := f.visibleNodes(ctx)
	if err != nil {
		return nil, err
	}
	var out []*nodes.Node
	for _, n := range ns {
		if n.Parent() == parent {
			out = append(out, n)
		}
	}
	return out, nil
}

// resolve walks a path; os.ErrNotExist when any segment is missing or not visible.
func (f *FS) resolve(ctx context.Context, name string) (*res, error) {
	key := path.Clean("/" + name)
	if r, ok := f.cache[key]; ok {
		return r, nil
	}
	segs := split(name)
	if len(segs) == 0 {
		return &res{kind: kindRoot}, nil
	}
	parent, err := f.resolve(ctx, "/"+strings.Join(segs[:len(segs)-1], "/"))
	if err != nil {
		return nil, err
	}
	r, err := f.child(ctx, parent, segs[len(segs)-1])
	if err != nil {
		return nil, err
	}
	f.cache[key] = r
	return r, nil
}

// child finds one named child of a resolved directory.
func (f *FS) child(ctx context.Context, parent *res, name string) (*res, error) {
	switch parent.kind {
	case kindRoot, kindNode:
		nodeID := ""
		if parent.kind == kindNode {
			nodeID = parent.node.ID
			libs, err := f.svc.Libraries.NodeLibraries(ctx, f.p, nodeID)
			if err != nil {
				return nil, notExist(err)
			}
			for _, l := range libs {
				if strings.EqualFold(l.Slug, name) {
					return &res{kind: kindLibrary, name: l.Slug, lib: l, node: parent.node, chain: []string{l.ID}, modTime: l.UpdatedAt}, nil
				}
			}
		}
		ns, err := f.childNodes(ctx, nodeID)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			if strings.EqualFold(n.Slug, name) {
				return &res{kind: kindNode, name: n.Slug, node: n, modTime: n.UpdatedAt}, nil
			}
		}
		return nil, os.ErrNotExist
	}
	if !parent.isDir() {
		return nil, os.ErrNotExist
	}
	e, err := f.svc.Libraries.Child(ctx, f.p, parent.lib.ID, parent.folderNo(), name)
	if err != nil {
		return nil, notExist(err)
	}
	return f.fileRes(parent, e), nil
}

func (f *FS) fileRes(parent *res, e libraries.Entry) *res {
	chain := append(append([]string{}, parent.chain...), e.GUID)
	return &res{kind: kindFile, name: e.Name, lib: parent.lib, node: parent.node, entry: e, chain: chain, modTime: e.UpdatedAt}
}

// list returns the children of a directory and caches them.
func (f *FS) list(ctx context.Context, dir string, r *res) ([]*res, error) {
	var out []*res
	switch r.kind {
	case kindRoot, kindNode:
		nodeID := ""
		if r.kind == kindNode {
			nodeID = r.node.ID
			libs, err := f.svc.Libraries.NodeLibraries(ctx, f.p, nodeID)
			if err != nil {
				return nil, err
			}
			for _, l := range libs {
				out = append(out, &res{kind: kindLibrary, name: l.Slug, lib: l, node: r.node, chain: []string{l.ID}, modTime: l.UpdatedAt})
			}
		}
		ns, err := f.childNodes(ctx, nodeID)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			out = append(out, &res{kind: kindNode, name: n.Slug, node: n, modTime: n.UpdatedAt})
		}
	default:
		es, err := f.svc.Libraries.Children(ctx, f.p, r.lib.ID, r.folderNo())
		if err != nil {
			return nil, err
		}
		out = make([]*res, 0, len(es))
		for _, e := range es {
			out = append(out, f.fileRes(r, e))
		}
	}
	base := path.Clean("/" + dir)
	for _, c := range out {
		f.cache[path.Join(base, c.name)] = c
	}
	return out, nil
}

// notExist turns a service's 404 into os.ErrNotExist (the webdav handler's
// vocabulary) and keeps any other error.
func notExist(err error) error {
	if fault.Is(err, fault.CodeNotFound) {
		return os.ErrNotExist
	}
	return err
}
