package lists

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/jobs"
	"coreportal/internal/nodes"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// Service holds the rules of lists, fields, items and views.
type Service struct {
	db    *store.DB
	st    *Store
	acl   *acl.Engine
	nodes *nodes.Service
	now   func() time.Time
	// hooks set by the wiring (recycle bin, live events, blobs)
	bin       Bin
	publish   func(ctx context.Context, listID string, number int64, item any)
	blobs     Blobs
	maxUpload int64
	counts    *countCache
	schemas   *schemaCache
	libs      LibraryLookups
	saveDelay time.Duration // test hook (SlowSaves)
	index     search.Index  // search index, nil when not wired
	adhoc     *adhocIndexes
	jobs      *jobs.Queue // imports (UseJobs)
}

// LibraryLookups is what lookups to document libraries need from the
// libraries capability (wired in cmd/coreportal; lists never read its tables).
type LibraryLookups interface {
	// CheckTarget validates a lookup's target library (view on it; 404 when
	// missing or hidden), lookupNodeId and the display column lookupFieldId.
	CheckTarget(ctx context.Context, p *auth.Principal, libraryID, nodeID, fieldRef string) error
	// Display is the display text of file number n; fault.NotFound when the
	// file is missing or the caller cannot view it.
	Display(ctx context.Context, p *auth.Principal, libraryID, fieldRef string, n int64) (string, error)
	// Options offers up to limit visible files whose display contains q;
	// accessDenied when the caller cannot view the library.
	Options(ctx context.Context, p *auth.Principal, libraryID, fieldRef, q string, limit int) (opts []field.LookupValue, accessDenied bool, err error)
	// Displays returns the display texts of files by number for reading
	// lookup values, of the files the caller bound to ctx (auth.FromContext)
	// can view; missing and hidden files and libraries are absent.
	Displays(ctx context.Context, libraryID, fieldRef string, numbers []int64) (map[int64]string, error)
	// DisplaySQL is the target of a library lookup in SQL (filters and sorts
	// by display), limited to the files p can view.
	DisplaySQL(ctx context.Context, p *auth.Principal, d store.Dialect, libraryID, fieldRef string) (field.LookupTarget, bool)
}

// UseLibraries plugs in lookups to document libraries.
func (s *Service) UseLibraries(l LibraryLookups) { s.libs = l }

// NewService builds the lists service and registers the item-number resolver
// so that /permissions accepts item numbers with listId.
func NewService(db *store.DB, engine *acl.Engine, nodeSvc *nodes.Service) *Service {
	s := &Service{db: db, st: &Store{db: db}, acl: engine, nodes: nodeSvc, now: time.Now, maxUpload: 100 << 20, counts: newCountCache(),
		schemas: &schemaCache{m: map[string]cachedSchema{}, now: time.Now}, adhoc: newAdhocIndexes(db)}
	s.st.displays = s.fillDisplays
	engine.RegisterNumberResolver(acl.ListItem, s.itemGUID)
	return s
}

func listRef(id string) acl.Ref   { return acl.Ref{Type: acl.List, ID: id} }
func itemRef(guid string) acl.Ref { return acl.Ref{Type: acl.ListItem, ID: guid} }

// schema is a list with its fields.
type schema struct {
	list   *List
	fields []*field.Def
	byID   map[string]*field.Def
	byName map[string]*field.Def
}

// metaDefs are the columns every item has besides its fields; `id` is the
// item number shown in every answer (a field whose internal name is id wins).
var metaDefs = map[string]*field.Def{
	"id":           {ID: "id", InternalName: "id", Title: "ID", Type: field.Number, ColName: "id"},
	"__created_at": {ID: "__created_at", InternalName: "__created_at", Title: "Created", Type: field.DateTime, ColName: "created_at", Kind: newStampKind()},
	"__updated_at": {ID: "__updated_at", InternalName: "__updated_at", Title: "Modified", Type: field.DateTime, ColName: "updated_at", Kind: newStampKind()},
}

// resolve maps a field UUID, internal_name or meta column to its definition.
func (sc *schema) resolve(col string) (*field.Def, bool) {
	col = strings.TrimSpace(col)
	if f, ok := sc.byID[strings.ToLower(col)]; ok {
		return f, true
	}
	if f, ok := sc.byName[col]; ok {
		return f, true
	}
	f, ok := metaDefs[col]
	return f, ok
}

func (sc *schema) field(name string) *field.Def { return sc.byName[name] }

func newSchema(l *List, fields []*field.Def) *schema {
	sc := &schema{list: l, fields: fields, byID: map[string]*field.Def{}, byName: map[string]*field.Def{}}
	for _, f := range fields {
		sc.byID[f.ID] = f
		sc.byName[f.InternalName] = f
	}
	return sc
}

// load reads a list and its fields (fault.NotFound when absent or in the bin).
func (s *Service) load(ctx context.Context, listID string) (*schema, error) {
	if _, err := uuid.Parse(listID); err != nil {
		return nil, fault.Validation("listId", "the list id must be a UUID") // CONTRACT: bad UUIDs are 400
	}
	inTx := store.InTransaction(ctx)
	if !inTx {
		if sc, ok := s.schemas.get(listID); ok {
			return sc, nil
		}
	}
	gen := s.schemas.generation()
	l, err := s.st.list(ctx, listID)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("list")
	}
	if err != nil {
		return nil, err
	}
	fields, err := s.st.fields(ctx, listID)
	if err != nil {
		return nil, err
	}
	s.withDisplays(l, fields)
	sc := newSchema(l, fields)
	if !inTx { // never keep what a transaction has not committed yet
		s.schemas.put(sc, gen)
	}
	return sc, nil
}

// open loads the list and checks min on it: a list in the recycle bin is
// missing (404) whatever the caller's rights, an existing one the caller
// lacks the right on is 403.
func (s *Service) open(ctx context.Context, p *auth.Principal, listID string, min acl.Level) (*schema, error) {
	sc, err := s.load(ctx, listID)
	if err != nil {
		return nil, err
	}
	if err := s.acl.Require(ctx, p, listRef(listID), min); err != nil {
		return nil, err
	}
	return sc, nil
}

// findItem resolves an item reference (number or guid).
func (s *Service) findItem(ctx context.Context, sc *schema, ref string) (*Item, error) {
	ref = strings.TrimSpace(ref)
	var it *Item
	var err error
	if n, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
		it, err = s.st.item(ctx, sc.list, sc.fields, "id = ?", n)
	} else if _, uerr := uuid.Parse(ref); uerr == nil {
		it, err = s.st.item(ctx, sc.list, sc.fields, "guid = ?", idArg(s.db.Dialect, strings.ToLower(ref)))
	} else {
		return nil, fault.NotFound("item")
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("item")
	}
	return it, err
}

// itemGUID is the acl number resolver of list items.
func (s *Service) itemGUID(ctx context.Context, listID string, number int64) (string, error) {
	sc, err := s.load(ctx, listID)
	if err != nil {
		return "", err
	}
	it, err := s.findItem(ctx, sc, strconv.FormatInt(number, 10))
	if err != nil {
		return "", err
	}
	return it.GUID, nil
}

// env answers validation lookups for field values.
type env struct {
	s    *Service
	p    *auth.Principal
	kept map[string]any // stored values of the item being updated
}

func (e env) Subject(ctx context.Context, principalType, id string) (string, error) {
	name, err := e.s.st.subjectName(ctx, principalType, strings.ToLower(id))
	if err != nil {
		return "", fault.NotFound(principalType)
	}
	return name, nil
}

func (e env) LookupItem(ctx context.Context, f *field.Def, id int64) (string, error) {
	for _, v := range field.Lookups(e.kept[f.ID]) {
		if v.ItemID == id {
			return v.Display, nil // already on the item: unchanged, nothing new is read
		}
	}
	if f.Settings.LookupListID == "" {
		if e.s.libs == nil {
			return "", fault.Validation(f.ID, "document libraries are not available")
		}
		// the file must exist and be visible to the caller (else NotFound alike)
		return e.s.libs.Display(ctx, e.p, f.Settings.LookupLibraryID, f.Settings.LookupFieldID, id)
	}
	// the caller must see the target list and item: a hidden item answers
	// like a missing one, and its display is never read
	if err := e.s.acl.Require(ctx, e.p, listRef(f.Settings.LookupListID), acl.View); err != nil {
		return "", fault.NotFound("item")
	}
	target, err := e.s.load(ctx, f.Settings.LookupListID)
	if err != nil {
		return "", err
	}
	it, err := e.s.findItem(ctx, target, strconv.FormatInt(id, 10))
	if err != nil {
		return "", err
	}
	if lvl, err := e.s.acl.Level(ctx, e.p, itemRef(it.GUID)); err != nil {
		return "", err
	} else if lvl < acl.View {
		return "", fault.NotFound("item")
	}
	return lookupDisplay(target, it, f.Settings.LookupFieldID), nil
}

// lookupDisplay is the text shown for a target item: the chosen field, else the title.
func lookupDisplay(target *schema, it *Item, fieldRef string) string {
	f := target.field(sysTitle)
	if fieldRef != "" {
		if tf, ok := target.resolve(fieldRef); ok && !isMeta(tf) {
			f = tf
		}
	}
	if f == nil {
		return strconv.FormatInt(it.Number, 10)
	}
	return displayText(f, it.Values[f.ID])
}

// displayText renders any field value as plain text.
func displayText(f *field.Def, v any) string { return field.DisplayText(f, v) }

// itemsChanged drops cached counts of a list once the transaction commits
// (and at once: a count read inside the transaction must not be kept either).
func (s *Service) itemsChanged(ctx context.Context, listID string) {
	s.counts.changed(listID)
	store.AfterCommit(ctx, func() { s.counts.changed(listID) })
}

// newKey returns a time-ordered UUID (version 7) for item guids and version
// rows: consecutive inserts land on the same index pages instead of random
// ones, which keeps the write-ahead log (full-page images) and cache churn of
// the guid, ACL and version indexes small under sustained item creation.
func newKey() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
