package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"coreportal/internal/acl"
)

// rights is what the caller may view (acl.Engine.Reach); nil for
// administrators.
type rights = acl.Reach

func (s *indexStore) ids(ctx context.Context, what, q string, args ...any) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// query is a parsed search request.
type query struct {
	terms  []term
	typ    string
	nodeID string
	limit  int
	offset int
	rights *rights
}

// hit is one matching entry with its score.
type hit struct {
	entry
	Score float64
}

// countCap is how many matches one pass reads: up to it the page is cut
// from them (their number is the total); beyond, the total is counted
// (exactCount: on PostgreSQL from the bitmap count index, which reads no
// row per match) and the page is read from an index (page).
const countCap = 1000

// counted is the pass size of this store (tests lower it).
func (s *indexStore) counted() int {
	if s.countCap > 0 {
		return s.countCap
	}
	return countCap
}

// Scores of the two ranking tiers.
const (
	scoreTitle = 2 // every term matches the title
	scoreBody  = 1
)

// found is what one search read: the page and the exact total.
type found struct {
	hits  []hit
	total int
}

// search ranks by tier (every term in the title first), then newest first.
// When there are few matches (up to the cap), one pass reads them with their
// tier and order key and the page is cut from them. Beyond the cap the total
// and the size of the title tier are counted (exactCount) and the page is
// read from the title tier and then the rest in the order of an index (see
// page), so no match beyond the page is read. On PostgreSQL a query without
// phrases is counted first (on the bitmaps, a few milliseconds), so that a
// large result skips the pass.
func (s *indexStore) search(ctx context.Context, q query) (found, error) {
	t := s.tiers(q)
	if s.pg() && !slices.ContainsFunc(q.terms, func(t term) bool { return t.phrase }) && !s.passFirst {
		out, ok, err := s.bitSearch(ctx, q, t)
		if err != nil || ok {
			return out, err
		}
	}
	ms, err := s.matches(ctx, t.whole, &t.inTitle)
	if err != nil {
		return found{}, err
	}
	if len(ms) <= s.counted() {
		ids, scores := cut(ms, q.offset, q.limit)
		hs, err := s.hits(ctx, ids, scores)
		return found{hits: hs, total: len(ms)}, err
	}
	total, err := s.exactCount(ctx, q, t.whole, t.wholeQ)
	if err != nil {
		return found{}, err
	}
	return s.paged(ctx, q, t, total)
}

// paged reads the page of a search with more matches than one pass reads:
// the title tier's size is counted, its part of the page read from it and
// the rest from the other matches, each in the order of an index.
func (s *indexStore) paged(ctx context.Context, q query, t tiers, total int) (found, error) {
	out := found{total: total}
	if q.offset >= total {
		return out, nil
	}
	nTitle, err := s.exactCount(ctx, q, t.title, t.titleQ)
	if err != nil {
		return found{}, err
	}
	ids := []string{}
	scores := map[string]float64{}
	if q.offset < nTitle {
		if ids, err = s.page(ctx, t.title, nTitle, q.offset, q.limit); err != nil {
			return found{}, err
		}
		for _, id := range ids {
			scores[id] = scoreTitle
		}
	}
	if n := q.limit - len(ids); n > 0 && q.offset+len(ids) < total {
		more, err := s.page(ctx, t.rest, total-nTitle, max(0, q.offset-nTitle), n)
		if err != nil {
			return found{}, err
		}
		for _, id := range more {
			scores[id] = scoreBody
		}
		ids = append(ids, more...)
	}
	out.hits, err = s.hits(ctx, ids, scores)
	return out, err
}

// match is an entry of a pass: its tier and its order within the tier
// (PostgreSQL: updated_at, then id; SQLite: the FTS rowid).
type match struct {
	id    string
	title bool
	at    int64
}

// cut sorts matches (tier, then newest first) and returns the ids and
// scores of the page from offset.
func cut(ms []match, offset, limit int) ([]string, map[string]float64) {
	slices.SortFunc(ms, func(a, b match) int {
		if a.title != b.title {
			if a.title {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	ids := []string{}
	scores := map[string]float64{}
	for _, m := range ms[min(offset, len(ms)):min(offset+limit, len(ms))] {
		ids = append(ids, m.id)
		scores[m.id] = scoreBody
		if m.title {
			scores[m.id] = scoreTitle
		}
	}
	return ids, scores
}

// matches reads up to the cap + 1 entries matching c with their order key
// and, when inTitle is given, their tier (else all are in the title tier).
func (s *indexStore) matches(ctx context.Context, c cond, inTitle *cond) ([]match, error) {
	flag, flagArgs := "1 = 1", []any(nil)
	if inTitle != nil {
		flag, flagArgs = inTitle.sql, inTitle.args
	}
	q := `SELECT e.id, ` + flag + `, e.updated_at FROM search_entries e WHERE ` + c.sql + ` LIMIT ?`
	args := append(append(append([]any{}, flagArgs...), c.args...), s.counted()+1)
	if !s.pg() {
		q = `SELECT e.id, ` + flag + `, f.rowid FROM search_fts f CROSS JOIN search_entries e ON e.seq = f.rowid
			WHERE f.search_fts MATCH ?` + c.sql + ` LIMIT ?`
		args = append(append(append([]any{}, flagArgs...), c.fts), args[len(flagArgs):]...)
	}
	// planned: how common the words are decides between a bitmap and a sequential scan
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, s.db.Dialect.Planned(args)...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []match
	for rows.Next() {
		var m match
		var err error
		if s.pg() {
			var at time.Time
			err = rows.Scan(&m.id, &m.title, &at)
			m.at = at.UnixNano()
		} else {
			err = rows.Scan(&m.id, &m.title, &m.at)
		}
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// cond selects entries: a WHERE condition on search_entries e with its
// arguments; on SQLite also the FTS5 MATCH expression of search_fts f.
type cond struct {
	fts  string
	sql  string
	args []any
}

func (c cond) and(sql string, args ...any) cond {
	return cond{fts: c.fts, sql: c.sql + sql, args: append(append([]any{}, c.args...), args...)}
}

// tiers are the conditions of a search: the whole match, its title tier
// (every term in the title) and the rest; inTitle tells on a matching row
// whether it is in the title tier.
type tiers struct {
	whole, title, rest, inTitle cond
	// PostgreSQL: the tsquery expressions of the whole match and of its
	// title tier (counted on the bitmaps, see exactCount)
	wholeQ, titleQ cond
}

func (s *indexStore) tiers(q query) tiers {
	var t tiers
	if s.pg() {
		t = pgTiers(q.terms)
	} else {
		t = sqliteTiers(q.terms)
	}
	var f string
	var args []any
	if q.rights != nil {
		f, args = s.rightsFilter(q.rights)
	}
	if q.typ != "" {
		f += " AND e.type = ?"
		args = append(args, q.typ)
	}
	if q.nodeID != "" {
		f += ` AND e.node_id IN (WITH RECURSIVE sub(id, depth) AS (SELECT id, 0 FROM nodes WHERE id = ?
			UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id WHERE sub.depth < 64) SELECT id FROM sub)`
		args = append(args, q.nodeID)
	}
	if !s.pg() {
		f = strings.NewReplacer(" e.", " +e.", "(e.", "(+e.").Replace(f) // SQLite: entries are looked up by the FTS rowid, never by these columns
	}
	t.whole, t.title, t.rest = t.whole.and(f, args...), t.title.and(f, args...), t.rest.and(f, args...)
	return t
}

// pgTiers: the terms as a tsquery T (GIN), the title tier T1 on the '^'
// marker lexemes of the title (phrases also restricted to weight A, checked
// on the row). A query whose words are all stop words matches nothing.
func pgTiers(terms []term) tiers {
	var all, title []string
	var allArgs, titleArgs []any
	for _, t := range terms {
		switch {
		case t.prefix:
			all = append(all, "to_tsquery('simple', ?)")
			title = append(title, "search_title_query(to_tsquery('simple', ?))")
			allArgs = append(allArgs, t.words[0]+":*")
			titleArgs = append(titleArgs, t.words[0]+":*")
		case t.phrase:
			ph := strings.Join(t.words, " ")
			all = append(all, "(phraseto_tsquery('russian', ?) || phraseto_tsquery('english', ?))")
			title = append(title, "search_title_query(phraseto_tsquery('russian', ?) || phraseto_tsquery('english', ?)) && search_weight_a(phraseto_tsquery('russian', ?) || phraseto_tsquery('english', ?))")
			allArgs = append(allArgs, ph, ph)
			titleArgs = append(titleArgs, ph, ph, ph, ph)
		default:
			all = append(all, "(plainto_tsquery('russian', ?) || plainto_tsquery('english', ?))")
			title = append(title, "search_title_query(plainto_tsquery('russian', ?) || plainto_tsquery('english', ?))")
			allArgs = append(allArgs, t.words[0], t.words[0])
			titleArgs = append(titleArgs, t.words[0], t.words[0])
		}
	}
	tq, t1 := "("+strings.Join(all, " && ")+")", "("+strings.Join(title, " && ")+")"
	// the title tier's tsquery is empty when T is: the guard keeps both from matching everything
	guard := "numnode(" + tq + ") > 0 AND e.tsv @@ "
	whole := cond{sql: guard + tq, args: append(append([]any{}, allArgs...), allArgs...)}
	return tiers{whole: whole, title: cond{sql: guard + t1, args: append(append([]any{}, allArgs...), titleArgs...)},
		rest: whole.and(" AND NOT e.tsv @@ "+t1, titleArgs...), inTitle: cond{sql: "e.tsv @@ " + t1, args: titleArgs},
		wholeQ: cond{sql: tq, args: allArgs}, titleQ: cond{sql: t1, args: titleArgs}}
}

// sqliteTiers: FTS5 expressions, the title tier with a column filter.
func sqliteTiers(terms []term) tiers {
	m := ftsMatch(terms)
	title := "{title} : (" + m + ")"
	return tiers{whole: cond{fts: m}, title: cond{fts: title}, rest: cond{fts: "(" + m + ") NOT " + title},
		inTitle: cond{sql: "f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)", args: []any{title}}}
}

// rightsFilter keeps the entries the caller can view, by the chain rule
// acl.Reach compiles over the entry's stored chain (its boundary and the
// folders in search_scopes). It is checked on each match's row (SQLite: in
// the covering index search_entries_narrow).
func (s *indexStore) rightsFilter(r *rights) (string, []any) {
	c := r.Condition(s.chainColumns())
	return " AND " + c.SQL, c.Args
}

// chainColumns is where an entry (alias e) keeps its access chain.
func (s *indexStore) chainColumns() acl.ChainColumns {
	return acl.ChainColumns{Entry: "e.id", Container: "e.container_id", Boundary: "e.boundary",
		Set: s.idList(), SetArg: func(ids []string) any { return jsonIDs(ids) },
		Below: func(set string) string {
			return "e.id IN (SELECT ss.entry_id FROM search_scopes ss WHERE ss.object_id IN " + set + ")"
		}}
}

// page returns the ids of the entries matching c (about n of them), newest
// first, from offset. SQLite reads them in the order of
// the FTS5 rowid, which orders entries newest first (seq), and stops after
// the page. PostgreSQL either walks the updated_at index newest first,
// checking each row (about (offset+limit) * entries / n rows), or reads
// every match from the GIN bitmap and sorts them (n rows), whichever reads
// fewer rows.
func (s *indexStore) page(ctx context.Context, c cond, n, offset, limit int) ([]string, error) {
	args := append(append([]any{}, c.args...), limit, offset)
	var q string
	switch {
	case !s.pg():
		q = `SELECT e.id FROM search_fts f CROSS JOIN search_entries e ON e.seq = f.rowid WHERE f.search_fts MATCH ?` + c.sql +
			` ORDER BY f.rowid DESC LIMIT ? OFFSET ?`
		args = append([]any{c.fts}, args...)
	case float64(n)*float64(n) > float64(offset+limit)*s.entries(ctx):
		// (…) IS TRUE is no index condition: the planner walks search_entries_recent
		q = `SELECT e.id FROM search_entries e WHERE (` + c.sql + `) IS TRUE ORDER BY e.updated_at DESC, e.id DESC LIMIT ? OFFSET ?`
	default:
		// OFFSET 0 keeps the bitmap scan of the matches apart from the sort
		q = `SELECT id FROM (SELECT e.id, e.updated_at FROM search_entries e WHERE ` + c.sql + ` OFFSET 0) m
			ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`
	}
	ids, err := s.ids(ctx, "search", q, s.db.Dialect.Planned(args)...)
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// hits reads the entries of a result page, in the order of ids.
func (s *indexStore) hits(ctx context.Context, ids []string, scores map[string]float64) ([]hit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, type, node_id, container_id, COALESCE(number, 0), slug, title, body, updated_at
		FROM search_entries WHERE id IN `+s.idList(), jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("search page: %w", err)
	}
	defer rows.Close()
	byID := make(map[string]hit, len(ids))
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.ID, &h.Type, &h.NodeID, &h.ContainerID, &h.Number, &h.Slug, &h.Title, &h.Body, &h.UpdatedAt); err != nil {
			return nil, fmt.Errorf("search page: %w", err)
		}
		byID[h.ID] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search page: %w", err)
	}
	out := make([]hit, 0, len(ids))
	for _, id := range ids {
		if h, ok := byID[id]; ok { // removed meanwhile: left out
			h.Score = scores[id]
			out = append(out, h)
		}
	}
	return out, nil
}

// nodePaths returns the slug path ("/a/b") of each node, in one query.
func (s *indexStore) nodePaths(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE up(start, parent_id, slug, depth) AS (
		SELECT id, parent_id, slug, 0 FROM nodes WHERE id IN `+s.idList()+`
		UNION ALL SELECT u.start, n.parent_id, n.slug, u.depth + 1 FROM nodes n JOIN up u ON n.id = u.parent_id WHERE u.depth < 64)
		SELECT start, slug FROM up ORDER BY start, depth DESC`, jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("node paths: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, slug string
		if err := rows.Scan(&id, &slug); err != nil {
			return nil, fmt.Errorf("node paths: %w", err)
		}
		out[id] += "/" + slug
	}
	return out, rows.Err()
}

// entries estimates the size of the index (PostgreSQL's statistics, read at
// most once a minute), which decides how page reads a tier.
func (s *indexStore) entries(ctx context.Context) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Since(s.sizedAt) < time.Minute {
		return s.size
	}
	var n float64
	// never analyzed (reltuples -1): about 1.5 kB a row
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT CASE WHEN reltuples >= 0 THEN reltuples ELSE pg_relation_size(oid) / 1500.0 END
		FROM pg_class WHERE oid = CAST('search_entries' AS regclass)`).Scan(&n)
	if err != nil || n < 1 {
		n = 1 // unknown: sort the matches
	}
	s.size, s.sizedAt = n, time.Now()
	return n
}
