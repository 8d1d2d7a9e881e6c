package dav

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/webdav"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/libraries"
	"coreportal/internal/nodes"
)

// Services are what the WebDAV tree is built over: the libraries service
// (every rule of the API holds: rights, isolation, versions, bin, search)
// and the nodes service. Never the blob store directly.
type Services struct {
	Libraries *libraries.Service
	Nodes     *nodes.Service
	Props     *Props
}

// FS is the webdav.FileSystem of one request: the tree as its caller may
// see it. It caches what it resolved, so that a PROPFIND of a folder reads
// the folder once and not once per child.
type FS struct {
	svc         *Services
	p           *auth.Principal
	r           *http.Request
	cache       map[string]*res
	nodeList    []*nodes.Node
	props       map[string]map[xml.Name]webdav.Property // dead properties read ahead, by resource id
	failed      error                                   // the last service error (mapped to the answer's status)
	lockCreated bool                                    // a LOCK made an empty file at an unmapped URL
}

func newFS(svc *Services, p *auth.Principal, r *http.Request) *FS {
	return &FS{svc: svc, p: p, r: r, cache: map[string]*res{}, props: map[string]map[xml.Name]webdav.Property{}}
}

// fail records a service error so that the handler's answer carries its
// status (403, 409, 413, 423…) rather than webdav's generic one.
func (f *FS) fail(err error) error {
	if err != nil {
		if _, ok := fault.As(err); ok {
			f.failed = err
		}
	}
	return err
}

func (f *FS) changed() { clear(f.cache) }

func parentRef(r *res) string {
	if r.kind == kindFile {
		return strconv.FormatInt(r.entry.Number, 10)
	}
	return ""
}

// Mkdir creates a folder (add on the parent; library roots and node
// directories cannot be created over WebDAV).
func (f *FS) Mkdir(ctx context.Context, name string, _ os.FileMode) error {
	if _, err := f.resolve(ctx, name); err == nil {
		return os.ErrExist
	}
	segs := split(name)
	if len(segs) == 0 {
		return os.ErrExist
	}
	parent, err := f.resolve(ctx, path.Dir(path.Clean("/"+name)))
	if err != nil {
		return err
	}
	if parent.kind == kindRoot || parent.kind == kindNode {
		return f.fail(fault.Forbidden("libraries are created in the portal, not over WebDAV"))
	}
	if !parent.isDir() {
		return os.ErrNotExist
	}
	defer f.changed()
	_, err = f.svc.Libraries.CreateFolder(ctx, f.p, parent.lib.ID, libraries.NewFolder{Name: segs[len(segs)-1], ParentID: parentRef(parent)})
	return f.fail(err)
}

// RemoveAll moves a file or folder to the recycle bin.
func (f *FS) RemoveAll(ctx context.Context, name string) error {
	r, err := f.resolve(ctx, name)
	if err != nil {
		return err
	}
	if r.kind != kindFile {
		return f.fail(fault.Forbidden("libraries and nodes are deleted in the portal, not over WebDAV"))
	}
	defer f.changed()
	_, err = f.svc.Libraries.DeleteFile(ctx, f.p, r.lib.ID, r.entry.GUID)
	return f.fail(err)
}

// Rename renames or moves within one library (the API's rules: cycles and
// duplicate names answer 409). A move between libraries answers 403.
func (f *FS) Rename(ctx context.Context, oldName, newName string) error {
	src, err := f.resolve(ctx, oldName)
	if err != nil {
		return err
	}
	if src.kind != kindFile {
		return f.fail(fault.Forbidden("libraries and nodes are renamed in the portal, not over WebDAV"))
	}
	dir, err := f.resolve(ctx, path.Dir(path.Clean("/"+newName)))
	if err != nil {
		return err
	}
	if dir.kind == kindRoot || dir.kind == kindNode || !dir.isDir() {
		return f.fail(fault.Forbidden("the destination is not a folder of a library"))
	}
	if dir.lib.ID != src.lib.ID {
		return f.fail(fault.Forbidden("moving between libraries is not supported; copy, then delete"))
	}
	name := path.Base(path.Clean("/" + newName))
	parent := parentRef(dir)
	patch := libraries.FilePatch{ParentID: &parent}
	if name != src.entry.Name {
		patch.Name = &name
	}
	defer f.changed()
	_, err = f.svc.Libraries.UpdateFile(ctx, f.p, src.lib.ID, src.entry.GUID, patch)
	return f.fail(err)
}

// Stat resolves a path.
func (f *FS) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	if hidden(name) {
		return nil, os.ErrNotExist
	}
	r, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	return info{r}, nil
}

// OpenFile opens a resource for reading (lazily: the blob is opened at
// the first read) or, with O_CREATE or O_TRUNC, a writer whose bytes stream
// into a new file or a new version (as an upload).
func (f *FS) OpenFile(ctx context.Context, name string, flag int, _ os.FileMode) (webdav.File, error) {
	if flag&(os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_RDWR) != 0 {
		return f.create(ctx, name)
	}
	r, err := f.resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	return &file{fs: f, ctx: ctx, name: name, r: r}, nil
}

func (f *FS) create(ctx context.Context, name string) (webdav.File, error) {
	clean := path.Clean("/" + name)
	if clean == "/" {
		return nil, os.ErrExist
	}
	if hidden(clean) {
		return discard{}, nil
	}
	dir, err := f.resolve(ctx, path.Dir(clean))
	if errors.Is(err, os.ErrNotExist) {
		// RFC 4918 9.7.1 and 9.10.4: a missing parent is 409 (a LOCK
		// would otherwise answer 500)
		return nil, f.fail(fault.Conflict("the parent folder does not exist"))
	}
	if err != nil {
		return nil, err
	}
	if dir.kind == kindRoot || dir.kind == kindNode {
		return nil, f.fail(fault.Forbidden("files are stored in libraries; this is a node"))
	}
	if !dir.isDir() {
		return nil, os.ErrNotExist
	}
	if r, err := f.resolve(ctx, clean); err == nil && r.isDir() {
		return nil, f.fail(fault.Conflict("a folder has that name"))
	}
	declared := ""
	if f.r.Method == http.MethodPut {
		declared = f.r.Header.Get("Content-Type")
	}
	return &writer{fs: f, ctx: ctx, name: clean, dir: dir, base: path.Base(clean), declared: declared}, nil
}

// file is an open resource for reading.
type file struct {
	fs   *FS
	ctx  context.Context
	name string
	r    *res
	body io.ReadSeeker
	pos  int64
}

func (fl *file) open() error {
	if fl.body != nil {
		return nil
	}
	if fl.r.isDir() {
		return fs.ErrInvalid
	}
	c, err := fl.fs.svc.Libraries.Download(fl.ctx, fl.fs.p, fl.r.lib.ID, fl.r.entry.GUID, "")
	if err != nil {
		return fl.fs.fail(err)
	}
	fl.body = c.Body
	if fl.pos != 0 {
		_, err = fl.body.Seek(fl.pos, io.SeekStart)
	}
	return err
}

func (fl *file) Read(p []byte) (int, error) {
	if err := fl.open(); err != nil {
		return 0, err
	}
	return fl.body.Read(p)
}

func (fl *file) Seek(off int64, whence int) (int64, error) {
	if fl.body == nil && (whence == io.SeekStart || whence == io.SeekEnd) {
		// http.ServeContent seeks to the end for the size: no blob open needed
		if whence == io.SeekEnd {
			off += fl.r.entry.Size
		}
		fl.pos = off
		return off, nil
	}
	if err := fl.open(); err != nil {
		return 0, err
	}
	return fl.body.Seek(off, whence)
}

func (fl *file) Readdir(count int) ([]fs.FileInfo, error) {
	if !fl.r.isDir() {
		return nil, fs.ErrInvalid
	}
	rs, err := fl.fs.list(fl.ctx, fl.name, fl.r)
	if err != nil {
		return nil, fl.fs.fail(err)
	}
	if err := fl.fs.readProps(fl.ctx, rs); err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, len(rs))
	for i, c := range rs {
		out[i] = info{c}
	}
	return out, nil
}

func (fl *file) Stat() (fs.FileInfo, error) { return info{fl.r}, nil }
func (fl *file) Write([]byte) (int, error)  { return 0, fs.ErrPermission }

func (fl *file) Close() error {
	if c, ok := fl.body.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// DeadProps returns the dead properties (webdav.DeadPropsHolder).
func (fl *file) DeadProps() (map[xml.Name]webdav.Property, error) {
	return fl.fs.deadProps(fl.ctx, fl.r)
}

// Patch stores dead properties (edit on a file or folder, the library's
// edit at its root).
func (fl *file) Patch(patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	return fl.fs.patchProps(fl.ctx, fl.r, patches)
}

// writer streams a PUT (or a COPY's bytes) into Upload: a new file or a
// new version of the file of that name, never held in memory.
type writer struct {
	fs       *FS
	ctx      context.Context
	name     string
	dir      *res
	base     string
	declared string
	pw       *io.PipeWriter
	done     chan error
	once     sync.Once
	err      error
	pending  []webdav.Proppatch // dead properties of a COPY, stored once the file is
}

func (w *writer) start() {
	pr, pw := io.Pipe()
	w.pw, w.done = pw, make(chan error, 1)
	go func() {
		_, _, err := w.fs.svc.Libraries.Upload(w.ctx, w.fs.p, w.dir.lib.ID, parentRef(w.dir), w.base, w.declared, pr, nil)
		pr.CloseWithError(errUploadEnded)
		w.done <- err
	}()
}

var errUploadEnded = errors.New("upload ended")

// finish ends the bytes and waits for the upload's outcome (once).
func (w *writer) finish() error {
	w.once.Do(func() {
		if w.pw == nil {
			w.start()
		}
		_ = w.pw.Close()
		w.err = <-w.done
		w.fs.changed()
		if w.err == nil && len(w.pending) > 0 {
			if r, err := w.fs.resolve(w.ctx, w.name); err == nil {
				_, w.err = w.fs.patchProps(w.ctx, r, w.pending)
			}
		}
	})
	return w.fs.fail(w.err)
}

func (w *writer) Write(p []byte) (int, error) {
	if w.pw == nil {
		w.start()
	}
	n, err := w.pw.Write(p)
	if errors.Is(err, errUploadEnded) {
		if ferr := w.finish(); ferr != nil {
			return n, ferr // the upload refused early: its error is the answer
		}
	}
	return n, err
}

// Stat ends the upload (the PUT handler asks after the last byte) and
// answers the stored file, whose version makes the ETag.
func (w *writer) Stat() (fs.FileInfo, error) {
	if err := w.finish(); err != nil {
		return nil, err
	}
	r, err := w.fs.resolve(w.ctx, w.name)
	if err != nil {
		return nil, err
	}
	return info{r}, nil
}

func (w *writer) Close() error                                     { return w.finish() }
func (w *writer) Read([]byte) (int, error)                         { return 0, fs.ErrPermission }
func (w *writer) Seek(int64, int) (int64, error)                   { return 0, fs.ErrPermission }
func (w *writer) Readdir(int) ([]fs.FileInfo, error)               { return nil, fs.ErrInvalid }
func (w *writer) DeadProps() (map[xml.Name]webdav.Property, error) { return nil, nil }
func (w *writer) Patch(p []webdav.Proppatch) ([]webdav.Propstat, error) {
	w.pending = append(w.pending, p...)
	return []webdav.Propstat{{Status: http.StatusOK}}, nil
}

// hidden reports the macOS metadata files the tree never stores: AppleDouble
// (._name) files and .DS_Store. Their PUTs are accepted and dropped (as
// Finder expects a write to succeed); they never appear in listings.
func hidden(name string) bool {
	b := path.Base(path.Clean("/" + name))
	return strings.HasPrefix(b, "._") || b == ".DS_Store"
}

// discard is the writer of a hidden name: bytes are dropped.
type discard struct{}

func (discard) Write(p []byte) (int, error)        { return len(p), nil }
func (discard) Close() error                       { return nil }
func (discard) Read([]byte) (int, error)           { return 0, io.EOF }
func (discard) Seek(int64, int) (int64, error)     { return 0, nil }
func (discard) Readdir(int) ([]fs.FileInfo, error) { return nil, fs.ErrInvalid }
func (discard) Stat() (fs.FileInfo, error)         { return info{&res{kind: kindFile}}, nil }
