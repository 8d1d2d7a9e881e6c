package search

import (
	"context"
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"coreportal/internal/store"
)

// Counts and listings answered from the bitmaps of the count index (bits.go).

// onBits is what a count or a listing evaluates on the bitmaps, read in
// one snapshot: the parsed query (minus the entries of not, when given), the
// bitmaps it needs and the pending entries (to leave out and read row by row).
type onBits struct {
	q       bitQuery
	not     *tsNode
	l       *loadedBits
	pending []int64
}

// readBits prepares an evaluation of the tsquery tq (minus the tsquery not)
// for q's caller; ok is false when the bitmaps cannot answer (a phrase or
// weight, an empty query, a backlog of pending entries).
func (s *indexStore) readBits(ctx context.Context, rq store.Querier, q query, tq, not cond) (*onBits, bool, error) {
	var texts []string
	for _, c := range []cond{tq, not} {
		if c.sql == "" {
			continue
		}
		var text string
		if err := rq.QueryRowContext(ctx, "SELECT CAST("+c.sql+" AS text)", c.args...).Scan(&text); err != nil {
			return nil, false, fmt.Errorf("search bits: %w", err)
		}
		texts = append(texts, text)
	}
	o := &onBits{}
	var ok bool
	if o.q.expr, ok = parseTSQuery(texts[0]); !ok {
		return nil, false, nil
	}
	if len(texts) > 1 {
		if o.not, ok = parseTSQuery(texts[1]); !ok {
			return nil, false, nil
		}
	}
	pending, err := store.Values[int64](ctx, rq, "SELECT DISTINCT bit FROM search_bits_pending LIMIT ?", maxPending+1)
	if err != nil {
		return nil, false, fmt.Errorf("search bits: %w", err)
	}
	if len(pending) > maxPending {
		return nil, false, nil
	}
	if o.pending = pending; pending == nil {
		o.pending = []int64{} // an empty array, not NULL
	}
	if o.q.masks, err = s.masks(ctx, rq, q); err != nil {
		return nil, false, err
	}
	exact, prefixes := o.q.terms(o.not)
	if o.l, err = s.loadBits(ctx, rq, exact, prefixes); err != nil {
		return nil, false, err
	}
	return o, true, nil
}

// rowSources are the entries the bitmaps leave out, as row sources aliased e
// with a condition to add to c: the pending ones, and (for a caller with
// grants) those visible through a grant on the entry or on an object between
// it and its container rather than through the container.
func (s *indexStore) rowSources(ctx context.Context, rq store.Querier, q query, o *onBits) ([]rowSource, error) {
	var out []rowSource
	if len(o.pending) > 0 {
		out = append(out, rowSource{from: "(SELECT * FROM search_entries WHERE bit = ANY(CAST(? AS bigint[])) OFFSET 0) e", args: []any{o.pending}})
	}
	if q.rights != nil && len(q.rights.Granted) > 0 {
		ids := s.idList()
		below, err := store.Values[string](ctx, rq, "SELECT DISTINCT CAST(entry_id AS text) FROM search_scopes WHERE object_id IN "+ids, jsonIDs(q.rights.Granted))
		if err != nil {
			return nil, fmt.Errorf("search scopes of grants: %w", err)
		}
		out = append(out, rowSource{from: "(SELECT * FROM search_entries WHERE id IN " + ids + " OFFSET 0) e",
			args: []any{jsonIDs(append(below, q.rights.Granted...))},
			where: cond{sql: `NOT e.bit = ANY(CAST(? AS bigint[])) AND NOT (e.boundary IS NULL AND e.container_id IN ` + ids + `) AND `,
				args: []any{o.pending, jsonIDs(q.rights.Open())}}})
	}
	return out, nil
}

type rowSource struct {
	from  string
	args  []any
	where cond // a prefix of the condition (ends with AND), or empty
}

func (r rowSource) cond(c cond) cond {
	return cond{sql: r.where.sql + c.sql, args: append(append([]any{}, r.where.args...), c.args...)}
}

// exactCount counts the entries matching c that the caller can view. On
// PostgreSQL a query of words and prefixes (tq: its tsquery) is counted on
// the bitmaps, plus row by row the entries the bitmaps leave out (see
// rowSources); in one snapshot, so the parts add up. Phrases, SQLite and a
// backlog of pending entries (right after a crawl) count rows.
func (s *indexStore) exactCount(ctx context.Context, q query, c, tq cond) (int, error) {
	if !s.pg() || tq.sql == "" || s.passFirst {
		return s.sqlCount(ctx, s.db.Q(ctx), c)
	}
	total := 0
	err := s.db.Snapshot(ctx, func(ctx context.Context, rq store.Querier) error {
		o, ok, err := s.readBits(ctx, rq, q, tq, cond{})
		if err != nil {
			return err
		}
		if !ok {
			total, err = s.sqlCount(ctx, rq, c)
			return err
		}
		for _, m := range o.l.match(o.q, nil, o.pending) {
			total += int(m.GetCardinality())
		}
		s.bitCounts.Add(1)
		srcs, err := s.rowSources(ctx, rq, q, o)
		if err != nil {
			return err
		}
		for _, src := range srcs {
			n, err := s.countRows(ctx, rq, src.from, src.args, src.cond(c))
			if err != nil {
				return err
			}
			total += n
		}
		return nil
	})
	return total, err
}

// listMax is the most matches of a tier sorted from the bitmaps; larger
// tiers are walked (page).
const listMax = 5000

// bitSearch answers a search on PostgreSQL from the bitmaps, in one
// snapshot: the total and the title tier's size are counted on them (plus
// the entries they leave out, row by row), and a tier of at most listMax
// entries is sorted from their numbers and the order keys in the index
// search_entries_bit (index-only), so no row is read for a match that is
// not on the page; larger tiers are walked newest first (page). ok is false
// when the bitmaps cannot answer (phrases, a backlog after a crawl).
func (s *indexStore) bitSearch(ctx context.Context, q query, t tiers) (out found, ok bool, err error) {
	var ids []string
	scores := map[string]float64{}
	err = s.db.Snapshot(ctx, func(ctx context.Context, rq store.Querier) error {
		o, can, err := s.readBits(ctx, rq, q, t.wholeQ, t.titleQ)
		if err != nil || !can {
			return err
		}
		srcs, err := s.rowSources(ctx, rq, q, o)
		if err != nil {
			return err
		}
		whole := o.l.match(o.q, nil, o.pending)
		title := o.l.match(bitQuery{expr: o.not, masks: o.q.masks}, nil, o.pending)
		total, err := s.tierSize(ctx, rq, whole, srcs, t.whole)
		if err != nil {
			return err
		}
		nTitle, err := s.tierSize(ctx, rq, title, srcs, t.title)
		if err != nil {
			return err
		}
		s.bitCounts.Add(1)
		ok, out.total = true, total
		if q.offset >= total {
			return nil
		}
		if q.offset < nTitle {
			if s.listable(ctx, nTitle, q.offset+q.limit) {
				ids, err = s.listTier(ctx, rq, title, srcs, t.title, q.offset, q.limit)
			} else {
				ids, err = s.page(ctx, t.title, nTitle, q.offset, q.limit)
			}
			if err != nil {
				return err
			}
			for _, id := range ids {
				scores[id] = scoreTitle
			}
		}
		if n := q.limit - len(ids); n > 0 && q.offset+len(ids) < total {
			var more []string
			if s.listable(ctx, total-nTitle, q.offset-nTitle+n) {
				more, err = s.listTier(ctx, rq, o.l.match(o.q, o.not, o.pending), srcs, t.rest, max(0, q.offset-nTitle), n)
			} else {
				more, err = s.page(ctx, t.rest, total-nTitle, max(0, q.offset-nTitle), n)
			}
			if err != nil {
				return err
			}
			for _, id := range more {
				scores[id] = scoreBody
			}
			ids = append(ids, more...)
		}
		return nil
	})
	if err != nil || !ok {
		return found{}, ok, err
	}
	out.hits, err = s.hits(ctx, ids, scores)
	return out, true, err
}

// listable tells whether a tier of n entries is sorted from the bitmaps
// (reading the order key of each of its entries from an index, about 2 µs
// each on the development machine) rather than walked newest first
// (reading about depth * entries / n rows with their full-text check: cheap
// for a first page, which reads recent rows, but 30-70 µs a row for deep
// pages): small tiers, and walks that would read more than a quarter of n
// rows.
func (s *indexStore) listable(ctx context.Context, n, depth int) bool {
	return n <= listMax || 4*float64(depth)*s.entries(ctx) > float64(n)*float64(n)
}

// tierSize is the number of entries of a tier: those in its bitmaps and
// those of the row sources matching c.
func (s *indexStore) tierSize(ctx context.Context, rq store.Querier, bits map[int32]*roaring.Bitmap, srcs []rowSource, c cond) (int, error) {
	n := 0
	for _, m := range bits {
		n += int(m.GetCardinality())
	}
	for _, src := range srcs {
		k, err := s.countRows(ctx, rq, src.from, src.args, src.cond(c))
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// listTier returns the page of a tier: the entries of its bitmaps with
// their order keys (index-only) and those of the row sources matching c,
// newest first.
func (s *indexStore) listTier(ctx context.Context, rq store.Querier, bits map[int32]*roaring.Bitmap, srcs []rowSource, c cond, offset, limit int) ([]string, error) {
	var nums []int64
	for chunk, m := range bits {
		for _, v := range m.ToArray() {
			nums = append(nums, int64(chunk)<<chunkShift|int64(v))
		}
	}
	ms, err := keysOf(ctx, rq, "SELECT CAST(id AS text), updated_at FROM search_entries WHERE bit = ANY(CAST(? AS bigint[]))", nums)
	if err != nil {
		return nil, err
	}
	for _, src := range srcs {
		w := src.cond(c)
		more, err := keysOf(ctx, rq, "SELECT CAST(e.id AS text), e.updated_at FROM "+src.from+" WHERE "+w.sql,
			s.db.Dialect.Planned(append(append([]any{}, src.args...), w.args...))...)
		if err != nil {
			return nil, err
		}
		ms = append(ms, more...)
	}
	ids, _ := cut(ms, offset, limit)
	return ids, nil
}

// keysOf reads (id, updated_at) rows as matches of one tier.
func keysOf(ctx context.Context, rq store.Querier, sql string, args ...any) ([]match, error) {
	rows, err := rq.QueryContext(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("search page: %w", err)
	}
	defer rows.Close()
	var out []match
	for rows.Next() {
		var m match
		var at time.Time
		if err := rows.Scan(&m.id, &at); err != nil {
			return nil, fmt.Errorf("search page: %w", err)
		}
		m.at = at.UnixNano()
		out = append(out, m)
	}
	return out, rows.Err()
}

// sqlCount counts the entries matching c.
func (s *indexStore) sqlCount(ctx context.Context, rq store.Querier, c cond) (int, error) {
	if s.pg() {
		return s.countRows(ctx, rq, "search_entries e", nil, c)
	}
	return s.countRows(ctx, rq, "search_fts f CROSS JOIN search_entries e ON e.seq = f.rowid", nil,
		cond{sql: "f.search_fts MATCH ?" + c.sql, args: append([]any{c.fts}, c.args...)})
}

// countRows counts the rows of src (a row source aliased e, with its
// arguments) that match c.
func (s *indexStore) countRows(ctx context.Context, rq store.Querier, src string, srcArgs []any, c cond) (int, error) {
	args := append(append([]any{}, srcArgs...), c.args...)
	var n int
	if err := rq.QueryRowContext(ctx, "SELECT count(*) FROM "+src+" WHERE "+c.sql, s.db.Dialect.Planned(args)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("search count: %w", err)
	}
	return n, nil
}

// masks are the rights and filters of q as bitmap terms.
func (s *indexStore) masks(ctx context.Context, rq store.Querier, q query) ([][]string, error) {
	var out [][]string
	if r := q.rights; r != nil {
		// the terms keep an entry's chain columns (open, container); the
		// rule over them is acl.Reach's
		in := make([]string, 0, len(r.Containers)+len(r.Granted))
		for _, id := range r.Open() {
			in = append(in, termIn+id)
		}
		out = append(out, []string{termOpen}, in)
	}
	if q.typ != "" {
		out = append(out, []string{termType + q.typ})
	}
	if q.nodeID != "" {
		ids, err := s.ids(ctx, "subtree", `WITH RECURSIVE sub(id, depth) AS (SELECT id, 0 FROM nodes WHERE id = ?
			UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id WHERE sub.depth < 64) SELECT CAST(id AS text) FROM sub`, q.nodeID)
		if err != nil {
			return nil, err
		}
		in := make([]string, len(ids))
		for i, id := range ids {
			in[i] = termNode + id
		}
		out = append(out, in)
	}
	return out, nil
}
