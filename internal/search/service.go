package search

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Service is the search index: it implements Index for the feature services
// and answers searches.
type Service struct {
	db      *store.DB
	st      *indexStore
	acl     *acl.Engine
	sources []Source
	// crawlBatch is how many resources one crawler transaction indexes.
	crawlBatch int
	// progressEvery is the least time between two progress reports of a crawl.
	progressEvery time.Duration
	progress      func(ctx context.Context, v any) error
}

// New builds the service.
func New(db *store.DB, engine *acl.Engine) *Service {
	return &Service{db: db, st: &indexStore{db: db, acl: engine}, acl: engine, crawlBatch: defaultCrawlBatch, progressEvery: time.Second}
}

// wordOf is the path word of each container type (SPEC.md canonical routes).
var wordOf = map[string]string{TypeList: "lists", TypeLibrary: "libraries", TypePage: "pages", TypeSurvey: "surveys"}

// path is the canonical route of an entry: the node's slug path np, then
// /lists|libraries|pages|surveys/<slug>, then ?item=N or ?file=N. Paths are
// composed when results are read, so they follow renamed and moved nodes.
func path(np string, h *hit) string {
	switch h.Type {
	case TypeNode:
		if np == "" {
			return "/"
		}
		return np
	case TypeItem:
		return np + "/lists/" + h.Slug + "?item=" + strconv.FormatInt(h.Number, 10)
	case TypeFile:
		return np + "/libraries/" + h.Slug + "?file=" + strconv.FormatInt(h.Number, 10)
	}
	return np + "/" + wordOf[h.Type] + "/" + h.Slug
}

// Put indexes d in the transaction bound to ctx.
func (s *Service) Put(ctx context.Context, d Doc) error { return s.putDocs(ctx, []Doc{d}) }

// PutAll indexes docs in the transaction bound to ctx, as Put does for each.
func (s *Service) PutAll(ctx context.Context, docs []Doc) error {
	if len(docs) == 0 {
		return nil
	}
	return s.putDocs(ctx, docs)
}

// putDocs indexes docs with their access chains (one query for all).
func (s *Service) putDocs(ctx context.Context, docs []Doc) error {
	es := make([]*entry, len(docs))
	for i := range docs {
		es[i] = &entry{Doc: docs[i]}
	}
	if err := s.st.chains(ctx, es); err != nil {
		return err
	}
	es, gone := registered(es)
	if err := s.st.remove(ctx, gone); err != nil {
		return err
	}
	return s.st.put(ctx, es)
}

// Remove drops entries by resource id.
func (s *Service) Remove(ctx context.Context, ids ...string) error { return s.st.remove(ctx, ids) }

// RemoveContainer drops a container's entry and everything inside it.
func (s *Service) RemoveContainer(ctx context.Context, id string) error {
	return s.st.removeContainer(ctx, id)
}

// RenameContainer gives a container's entries (its own and those inside
// it) the container's new slug, in one statement.
func (s *Service) RenameContainer(ctx context.Context, id, slug string) error {
	return s.st.setSlug(ctx, id, slug)
}

// Rename gives the entries of a container a new slug when ix can (the search
// service); it reports whether it did, so that callers can fall back to a reindex.
func Rename(ctx context.Context, ix Index, containerID, slug string) (bool, error) {
	r, ok := ix.(interface {
		RenameContainer(ctx context.Context, id, slug string) error
	})
	if !ok {
		return false, nil
	}
	return true, r.RenameContainer(ctx, containerID, slug)
}

// Rescope recomputes the access chain of the entries that depend on the
// resource (hooked to acl inheritance changes and moves): its own entry and
// the entries below it up to the next isolated folder.
func (s *Service) Rescope(ctx context.Context, ref acl.Ref) error {
	if ref.Type != acl.ListItem && ref.Type != acl.File {
		return nil // containers and nodes are evaluated at query time
	}
	s.st.hook(ctx, "rescope")
	es, err := s.st.dependents(ctx, ref.ID)
	if err != nil {
		return err
	}
	s.st.hook(ctx, "dependents")
	for len(es) > 0 {
		n := min(len(es), putBatch)
		if err := s.st.chains(ctx, es[:n]); err != nil {
			return err
		}
		keep, gone := registered(es[:n])
		if err := s.st.remove(ctx, gone); err != nil {
			return err
		}
		if len(keep) > 0 {
			if err := s.st.rescope(ctx, keep); err != nil {
				return err
			}
		}
		es = es[n:]
	}
	return nil
}

// Clear empties the index (administrators) and returns how many entries it held.
func (s *Service) Clear(ctx context.Context) (int, error) { return s.st.clear(ctx) }

// Stats reports the entry count and the end of the last full crawl.
func (s *Service) Stats(ctx context.Context) (Stats, error) { return s.st.stats(ctx) }

// Request is one GET /search.
type Request struct {
	Q      string
	Type   string
	NodeID string
	Page   int
	Limit  int
}

// Hit is one search result.
type Hit struct {
	Type      string    `json:"type" doc:"item, file, page, node, list, library or survey"`
	ID        string    `json:"id" doc:"the resource id (item or file guid for items and files)"`
	NodeID    string    `json:"nodeId"`
	ListID    string    `json:"listId,omitempty" doc:"items and lists"`
	LibraryID string    `json:"libraryId,omitempty" doc:"files and libraries"`
	PageID    string    `json:"pageId,omitempty"`
	SurveyID  string    `json:"surveyId,omitempty"`
	Number    int64     `json:"number,omitempty" doc:"item or file number"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet" doc:"HTML-escaped text around the first match, matches wrapped in <mark>…</mark>"`
	Path      string    `json:"path" doc:"canonical route, composed from the current slugs (follows renamed and moved nodes, lists and libraries at once): /<node slugs>/lists/<slug>?item=N for items, /<node slugs>/libraries/<slug>?file=N for files, /<node slugs>/pages/<slug>, /<node slugs>/surveys/<slug>, /<node slugs> for nodes"`
	UpdatedAt time.Time `json:"updatedAt"`
	Score     float64   `json:"score" doc:"relevance tier: 2 when the title matches every term, else 1"`
}

// Found is the answer of a search: a page of hits and the exact total.
type Found struct {
	Hits  []Hit
	Total int
}

// Search answers a query with what the caller may view.
func (s *Service) Search(ctx context.Context, p *auth.Principal, r Request) (Found, error) {
	if r.Type != "" && !slices.Contains(Types, r.Type) {
		return Found{}, fault.Validation("type", "type must be one of item, file, page, node, list, library, survey")
	}
	terms := parseQuery(r.Q)
	if len(terms) == 0 {
		return Found{}, fault.Validation("q", "q must contain at least one word")
	}
	if r.NodeID != "" {
		if _, err := uuid.Parse(r.NodeID); err != nil || len(r.NodeID) != 36 {
			return Found{}, fault.Validation("nodeId", "nodeId must be a UUID")
		}
		if err := s.acl.Require(ctx, p, acl.Ref{Type: acl.Node, ID: r.NodeID}, acl.View); err != nil {
			return Found{}, err
		}
	}
	q := query{terms: terms, typ: r.Type, nodeID: r.NodeID, limit: r.Limit, offset: (r.Page - 1) * r.Limit}
	if !p.IsAdmin {
		rt, err := s.rightsOf(ctx, p)
		if err != nil {
			return Found{}, err
		}
		q.rights = rt
	}
	res, err := s.st.search(ctx, q)
	if err != nil {
		return Found{}, err
	}
	nodeIDs := make([]string, 0, len(res.hits))
	for _, h := range res.hits {
		nodeIDs = append(nodeIDs, h.NodeID)
	}
	paths, err := s.st.nodePaths(ctx, nodeIDs)
	if err != nil {
		return Found{}, err
	}
	m := newMatcher(terms)
	out := Found{Hits: make([]Hit, 0, len(res.hits)), Total: res.total}
	for i := range res.hits {
		out.Hits = append(out.Hits, present(&res.hits[i], m, paths[res.hits[i].NodeID]))
	}
	return out, nil
}

func (s *Service) rightsOf(ctx context.Context, p *auth.Principal) (*rights, error) {
	r, err := s.acl.Reach(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("search rights: %w", err)
	}
	return r, nil
}

func present(h *hit, m matcher, nodePath string) Hit {
	out := Hit{Type: h.Type, ID: h.ID, NodeID: h.NodeID, Number: h.Number, Title: h.Title, Path: path(nodePath, h),
		UpdatedAt: h.UpdatedAt.UTC(), Score: h.Score}
	switch h.Type {
	case TypeItem, TypeList:
		out.ListID = h.ContainerID
	case TypeFile, TypeLibrary:
		out.LibraryID = h.ContainerID
	case TypePage:
		out.PageID = h.ContainerID
	case TypeSurvey:
		out.SurveyID = h.ContainerID
	}
	out.Snippet = snippet(h.Body, m)
	if out.Snippet == "" || !containsMark(out.Snippet) {
		if t := snippet(h.Title, m); containsMark(t) || out.Snippet == "" {
			out.Snippet = t
		}
	}
	return out
}

func containsMark(s string) bool { return strings.Contains(s, "<mark>") }
