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
	db       *store.DB
	st       *indexStore
	acl      *acl.Engine
	nodePath func(ctx context.Context, nodeID string) (string, error)
	sources  []Source
}

// New builds the service; nodePath gives the slug path of a node ("/a/b").
func New(db *store.DB, engine *acl.Engine, nodePath func(ctx context.Context, nodeID string) (string, error)) *Service {
	return &Service{db: db, st: &indexStore{db: db}, acl: engine, nodePath: nodePath}
}

// wordOf is the path word of each container type (SPEC.md canonical routes).
var wordOf = map[string]string{TypeList: "lists", TypeLibrary: "libraries", TypePage: "pages", TypeSurvey: "surveys"}

// path is the canonical route of d: the node's slug path, then
// /lists|libraries|pages|surveys/<slug>, then ?item=N or ?file=N.
func (s *Service) path(ctx context.Context, d Doc) (string, error) {
	np, err := s.nodePath(ctx, d.NodeID)
	if err != nil {
		return "", fmt.Errorf("path of node %s: %w", d.NodeID, err)
	}
	switch d.Type {
	case TypeNode:
		if np == "" {
			return "/", nil
		}
		return np, nil
	case TypeItem:
		return np + "/lists/" + d.Slug + "?item=" + strconv.FormatInt(d.Number, 10), nil
	case TypeFile:
		return np + "/libraries/" + d.Slug + "?file=" + strconv.FormatInt(d.Number, 10), nil
	}
	return np + "/" + wordOf[d.Type] + "/" + d.Slug, nil
}

// Put indexes d in the transaction bound to ctx.
func (s *Service) Put(ctx context.Context, d Doc) error {
	p, err := s.path(ctx, d)
	if err != nil {
		return err
	}
	e := entry{Doc: d, Path: p}
	if d.ID != d.ContainerID {
		if e.Boundary, err = s.st.boundaryOf(ctx, d.ID, d.ContainerID); err != nil {
			return err
		}
	}
	if e.UpdatedAt.IsZero() {
		e.UpdatedAt = time.Now().UTC()
	}
	return s.st.put(ctx, e)
}

// Remove drops entries by resource id.
func (s *Service) Remove(ctx context.Context, ids ...string) error { return s.st.remove(ctx, ids) }

// RemoveContainer drops a container's entry and everything inside it.
func (s *Service) RemoveContainer(ctx context.Context, id string) error {
	return s.st.removeContainer(ctx, id)
}

// Rescope recomputes the isolation boundary of the entries that depend on
// the resource id (hooked to acl inheritance changes and moves).
func (s *Service) Rescope(ctx context.Context, ref acl.Ref) error {
	if ref.Type != acl.ListItem && ref.Type != acl.File {
		return nil // containers and nodes are evaluated at query time
	}
	es, err := s.st.entriesUnder(ctx, ref.ID)
	if err != nil {
		return err
	}
	for _, e := range es {
		b, err := s.st.boundaryOf(ctx, e[0], e[1])
		if err != nil {
			return err
		}
		if err := s.st.setBoundary(ctx, e[0], b); err != nil {
			return err
		}
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
	Path      string    `json:"path" doc:"canonical route of the result"`
	UpdatedAt time.Time `json:"updatedAt"`
	Score     float64   `json:"score" doc:"relevance, higher is better; comparable within one answer only"`
}

// Search answers a query with what the caller may view.
func (s *Service) Search(ctx context.Context, p *auth.Principal, r Request) ([]Hit, int, error) {
	if r.Type != "" && !slices.Contains(Types, r.Type) {
		return nil, 0, fault.Validation("type", "type must be one of item, file, page, node, list, library, survey")
	}
	terms := parseQuery(r.Q)
	if len(terms) == 0 {
		return nil, 0, fault.Validation("q", "q must contain at least one word")
	}
	if r.NodeID != "" {
		if _, err := uuid.Parse(r.NodeID); err != nil || len(r.NodeID) != 36 {
			return nil, 0, fault.Validation("nodeId", "nodeId must be a UUID")
		}
		if err := s.acl.Require(ctx, p, acl.Ref{Type: acl.Node, ID: r.NodeID}, acl.View); err != nil {
			return nil, 0, err
		}
	}
	q := query{terms: terms, typ: r.Type, nodeID: r.NodeID, limit: r.Limit, offset: (r.Page - 1) * r.Limit}
	if !p.IsAdmin {
		rt, err := s.rightsOf(ctx, p)
		if err != nil {
			return nil, 0, err
		}
		q.rights = rt
	}
	hs, total, err := s.st.search(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	m := newMatcher(terms)
	out := make([]Hit, 0, len(hs))
	for _, h := range hs {
		out = append(out, present(h, m))
	}
	return out, total, nil
}

func (s *Service) rightsOf(ctx context.Context, p *auth.Principal) (*rights, error) {
	principals, err := s.acl.Principals(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	levels, err := s.acl.NodeLevels(ctx, p)
	if err != nil {
		return nil, err
	}
	r := &rights{principals: principals, minLevel: int(acl.View), nodes: []string{}}
	for id, l := range levels {
		if l >= acl.View {
			r.nodes = append(r.nodes, id)
		}
	}
	return r, nil
}

func present(h hit, m matcher) Hit {
	out := Hit{Type: h.Type, ID: h.ID, NodeID: h.NodeID, Number: h.Number, Title: h.Title, Path: h.Path,
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
