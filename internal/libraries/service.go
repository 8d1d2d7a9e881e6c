package libraries

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/doctext"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/filelock"
	"coreportal/internal/jobs"
	"coreportal/internal/nodes"
	"coreportal/internal/preview"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// BinEntry is what the service puts in the recycle bin.
type BinEntry struct {
	NodeID    string
	Kind      string
	Title     string
	DeletedBy string
	ScopeID   string
	Payload   json.RawMessage
	// ResourceID is the deleted resource (its access-control id); the bin
	// lists the entry only to callers who can view it as it was.
	ResourceID string
}

// Bin is the recycle bin as the service needs it (wired to internal/recyclebin).
type Bin interface {
	Add(ctx context.Context, e BinEntry) (string, error)
	// PurgeWhere purges the entries of a kind deleted from one scope (a library).
	PurgeWhere(ctx context.Context, kind, scopeID string) error
}

// Subjects names users and groups for person values (wired to users and groups).
type Subjects interface {
	// Subject returns the display of a user or group; fault.NotFound when absent.
	Subject(ctx context.Context, principalType, id string) (string, error)
}

// Service holds the rules of libraries, fields, files, folders and versions.
type Service struct {
	db        *store.DB
	st        *Store
	acl       *acl.Engine
	nodes     *nodes.Service
	blobs     blob.Store
	maxUpload int64
	bin       Bin
	subjects  Subjects
	counts    *countCache
	now       func() time.Time
	index     search.Index    // search index, nil when not wired
	locks     *filelock.Store // file locks (locks.go), nil when not wired

	jobs       *jobs.Queue    // text extraction jobs, nil when not wired (filetext.go)
	textLimits doctext.Limits // bounds of one extraction
	textMu     sync.Mutex
	textSlot   time.Time // run time of the last extraction the crawler queued

	previewQ *jobs.Queue       // preview jobs, nil when not wired (preview.go)
	previews *preview.Renderer // nil when not wired
}

// NewService builds the libraries service and registers the file-number
// resolver so that /permissions accepts file numbers with libraryId.
func NewService(db *store.DB, engine *acl.Engine, nodeSvc *nodes.Service, blobs blob.Store, maxUpload int64, bin Bin, subjects Subjects) *Service {
	s := &Service{db: db, st: &Store{db: db}, acl: engine, nodes: nodeSvc, blobs: blobs, maxUpload: maxUpload, bin: bin, subjects: subjects, counts: newCountCache(), now: time.Now}
	engine.RegisterNumberResolver(acl.File, s.fileGUID)
	return s
}

func libRef(id string) acl.Ref    { return acl.Ref{Type: acl.Library, ID: id} }
func fileRef(guid string) acl.Ref { return acl.Ref{Type: acl.File, ID: guid} }

// need answers 403 when p's level on ref is below min. Callers check first
// that the resource exists, so that a missing one answers 404 and an existing
// one the caller may not use answers 403 (SPEC.md, Errors 3).
func (s *Service) need(ctx context.Context, p *auth.Principal, ref acl.Ref, min acl.Level) error {
	lvl, err := s.acl.Level(ctx, p, ref)
	if err != nil {
		return err
	}
	if lvl < min {
		return fault.Forbidden("%s right on this %s is required", min, ref.Type)
	}
	return nil
}

// lib is a library with its fields.
type lib struct {
	*Library
	fields []*field.Def
	byID   map[string]*field.Def
	byName map[string]*field.Def
}

func (l *lib) resolve(key string) (*field.Def, bool) {
	if f, ok := l.byID[strings.ToLower(strings.TrimSpace(key))]; ok {
		return f, true
	}
	f, ok := l.byName[strings.TrimSpace(key)]
	return f, ok
}

// load reads a live library and its fields (fault.NotFound when absent or in the bin).
func (s *Service) load(ctx context.Context, id string) (*lib, error) {
	id, ok := store.CanonicalUUID(strings.TrimSpace(id))
	if !ok {
		return nil, fault.NotFound("library")
	}
	l, err := s.st.library(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("library")
	}
	if err != nil {
		return nil, err
	}
	fs, err := s.st.fields(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &lib{Library: l, fields: fs, byID: map[string]*field.Def{}, byName: map[string]*field.Def{}}
	for _, f := range fs {
		out.byID[f.ID] = f
		out.byName[f.InternalName] = f
	}
	s.compactValues(ctx, out)
	return out, nil
}

// loadParam is load for a library id taken from a request: a malformed id
// answers 400 (CONTRACT.md: bad UUIDs), a well-formed missing one 404.
func (s *Service) loadParam(ctx context.Context, id string) (*lib, error) {
	if _, ok := store.CanonicalUUID(strings.TrimSpace(id)); !ok {
		return nil, fault.Validation("libraryId", "the library id must be a UUID")
	}
	return s.load(ctx, id)
}

// open loads a library and checks min on it (400 malformed id, 404 missing, 403 without the level).
func (s *Service) open(ctx context.Context, p *auth.Principal, id string, min acl.Level) (*lib, error) {
	l, err := s.loadParam(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.need(ctx, p, libRef(l.ID), min); err != nil {
		return nil, err
	}
	return l, nil
}

// findFile resolves a file reference (number or guid) within a library:
// 400 when ref is neither a positive number nor a UUID, 404 when missing.
func (s *Service) findFile(ctx context.Context, libraryID, ref string) (*File, error) {
	ref = strings.TrimSpace(ref)
	var f *File
	var err error
	if n, perr := strconv.ParseInt(ref, 10, 64); perr == nil && n > 0 {
		f, err = s.st.file(ctx, libraryID, "number", n)
	} else if id, ok := store.CanonicalUUID(ref); ok {
		f, err = s.st.file(ctx, libraryID, "guid", id)
	} else {
		return nil, fault.Validation("fileRef", "a file reference must be a positive file number or a guid")
	}
	if store.IsNotFound(err) {
		return nil, fault.NotFound("file")
	}
	return f, err
}

// openFile loads a library the caller can open and one of its files with min on the file.
func (s *Service) openFile(ctx context.Context, p *auth.Principal, libraryID, ref string, min acl.Level) (*lib, *File, error) {
	l, err := s.loadParam(ctx, libraryID)
	if err != nil {
		return nil, nil, err
	}
	f, err := s.findFile(ctx, l.ID, ref)
	if err != nil {
		return nil, nil, err
	}
	if err := s.need(ctx, p, fileRef(f.GUID), min); err != nil {
		return nil, nil, err
	}
	return l, f, nil
}

// folderRef is the ACL parent of children of folder number parentNo (the
// library itself at the root); fault.NotFound when the folder is missing.
func (s *Service) folderRef(ctx context.Context, l *lib, parentNo int64) (acl.Ref, *File, error) {
	if parentNo == 0 {
		return libRef(l.ID), nil, nil
	}
	f, err := s.st.file(ctx, l.ID, "number", parentNo)
	if store.IsNotFound(err) || err == nil && !f.IsFolder {
		return acl.Ref{}, nil, fault.NotFound("folder").With("field", "parentId")
	}
	if err != nil {
		return acl.Ref{}, nil, err
	}
	return fileRef(f.GUID), f, nil
}

// parseParent reads a parentId (folder number or guid; empty = root).
func (s *Service) parseParent(ctx context.Context, l *lib, raw string) (int64, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "0" || raw == "null" {
		return 0, nil
	}
	f, err := s.findFile(ctx, l.ID, raw)
	if fault.Is(err, fault.CodeValidation) {
		return 0, fault.Validation("parentId", "parentId must be a positive folder number or a guid")
	}
	if fault.Is(err, fault.CodeNotFound) {
		return 0, fault.NotFound("folder").With("field", "parentId")
	}
	if err != nil {
		return 0, err
	}
	if !f.IsFolder {
		return 0, fault.Validation("parentId", "parentId must be a folder, not a file")
	}
	return f.Number, nil
}

// fileGUID is the acl number resolver of library files.
func (s *Service) fileGUID(ctx context.Context, libraryID string, number int64) (string, error) {
	f, err := s.st.file(ctx, libraryID, "number", number)
	if err != nil {
		return "", err
	}
	return f.GUID, nil
}

func nodeRef(id string) acl.Ref { return nodes.Ref(id) }
