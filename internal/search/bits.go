package search

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"coreportal/internal/store"
)

// The bitmap count index (PostgreSQL; migration 0750). An exact total needs
// every match the caller can view counted; PostgreSQL 15 reads a heap row
// per match for that (about 5-10 µs each on the development machine, so
// 50,000 matches cost 0.3-0.5 s). Here every entry has a bit number, and
// search_bits holds per term and chunk of 2^16 numbers a roaring bitmap of
// the entries carrying the term: lexemes of the tsvector and the terms
// below. A total is then bitmap algebra over a few hundred kilobytes.
const (
	chunkShift = 16
	termAlive  = "~a" // the entry with this number exists
	termOpen   = "~u" // no isolated object between the entry and its container
	termIn     = "~c" // + container id
	termType   = "~t" // + type
	termNode   = "~n" // + node id
)

// bitsLock serialises folding across instances (pg_try_advisory_xact_lock).
const bitsLock = 7_306_118_750

// bitsBatch is how many pending entries one fold reads: a chunk, so that a
// bulk fold (after a crawl) writes each bitmap of a chunk about once.
const bitsBatch = 1 << chunkShift

// maxPending is the number of unfolded entries up to which a count reads
// them row by row; beyond (after a crawl or a bulk load, until the worker
// has caught up) the count is a plain SQL count.
const maxPending = 20000

type chunkKey struct {
	term  string
	chunk int32
}

// foldBits folds up to bitsBatch pending entries into the bitmaps and
// reports how many it folded (0: nothing pending, or another instance is
// folding).
func (s *indexStore) foldBits(ctx context.Context) (int, error) {
	if !s.pg() {
		return 0, nil
	}
	n := 0
	err := s.db.InTx(ctx, func(ctx context.Context, tx *store.Tx) error {
		var got bool
		if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(?)", int64(bitsLock)).Scan(&got); err != nil {
			return fmt.Errorf("lock search bits: %w", err)
		}
		if !got {
			return nil
		}
		// the rows read now are the ones removed at the end: a write committed
		// meanwhile appends its own row, which stays for the next fold
		logged, err := s.pendingRows(ctx, tx)
		if err != nil || len(logged) == 0 {
			return err
		}
		seen := map[int64]bool{}
		ids := make([]int64, 0, len(logged))
		var pending []int64
		for _, r := range logged {
			ids = append(ids, r[0])
			if !seen[r[1]] {
				seen[r[1]] = true
				pending = append(pending, r[1])
			}
		}
		adds := map[chunkKey][]uint32{}
		add := func(term string, bit int64) {
			k := chunkKey{term, int32(bit >> chunkShift)}
			adds[k] = append(adds[k], uint32(bit&(1<<chunkShift-1)))
		}
		rows, err := tx.QueryContext(ctx, `SELECT bit, CAST(container_id AS text), boundary IS NULL, type, CAST(node_id AS text),
			array_to_string(tsvector_to_array(tsv), ' ') FROM search_entries WHERE bit = ANY(CAST(? AS bigint[]))`, pending)
		if err != nil {
			return fmt.Errorf("read pending search entries: %w", err)
		}
		alive := map[int64]bool{}
		for rows.Next() {
			var bit int64
			var container, typ, node, lexemes string
			var open bool
			if err := rows.Scan(&bit, &container, &open, &typ, &node, &lexemes); err != nil {
				rows.Close()
				return fmt.Errorf("read pending search entries: %w", err)
			}
			alive[bit] = true
			add(termAlive, bit)
			add(termIn+container, bit)
			add(termType+typ, bit)
			add(termNode+node, bit)
			if open {
				add(termOpen, bit)
			}
			for _, l := range strings.Fields(lexemes) {
				add(l, bit)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read pending search entries: %w", err)
		}
		dead := map[int32][]uint32{}
		for _, b := range pending {
			if !alive[b] {
				c := int32(b >> chunkShift)
				dead[c] = append(dead[c], uint32(b&(1<<chunkShift-1)))
			}
		}
		for c := range dead {
			if _, ok := adds[chunkKey{termAlive, c}]; !ok {
				adds[chunkKey{termAlive, c}] = nil
			}
		}
		if err := s.writeBits(ctx, tx, adds, dead); err != nil {
			return err
		}
		if s.foldHook != nil {
			s.foldHook()
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM search_bits_pending WHERE id = ANY(CAST(? AS bigint[]))", ids); err != nil {
			return fmt.Errorf("fold search bits: %w", err)
		}
		n = len(logged)
		return nil
	})
	return n, err
}

// pendingRows reads up to bitsBatch rows of the pending log: (id, bit).
func (s *indexStore) pendingRows(ctx context.Context, tx *store.Tx) ([][2]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, bit FROM search_bits_pending ORDER BY id LIMIT ?", bitsBatch)
	if err != nil {
		return nil, fmt.Errorf("read pending search bits: %w", err)
	}
	defer rows.Close()
	var out [][2]int64
	for rows.Next() {
		var r [2]int64
		if err := rows.Scan(&r[0], &r[1]); err != nil {
			return nil, fmt.Errorf("read pending search bits: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// writeBits adds the values of adds to the stored bitmaps (creating them)
// and removes the dead values from the alive bitmaps.
func (s *indexStore) writeBits(ctx context.Context, tx *store.Tx, adds map[chunkKey][]uint32, dead map[int32][]uint32) error {
	terms := make([]string, 0, len(adds))
	chunks := make([]int32, 0, len(adds))
	for k := range adds {
		terms = append(terms, k.term)
		chunks = append(chunks, k.chunk)
	}
	stored := map[chunkKey]*roaring.Bitmap{}
	rows, err := tx.QueryContext(ctx, `SELECT b.term, b.chunk, b.bits FROM search_bits b
		JOIN unnest(CAST(? AS text[]), CAST(? AS integer[])) AS k(term, chunk) ON b.term = k.term AND b.chunk = k.chunk`, terms, chunks)
	if err != nil {
		return fmt.Errorf("read search bits: %w", err)
	}
	for rows.Next() {
		var k chunkKey
		var blob []byte
		if err := rows.Scan(&k.term, &k.chunk, &blob); err != nil {
			rows.Close()
			return fmt.Errorf("read search bits: %w", err)
		}
		b := roaring.New()
		if err := b.UnmarshalBinary(blob); err != nil {
			rows.Close()
			return fmt.Errorf("read search bits %s/%d: %w", k.term, k.chunk, err)
		}
		stored[k] = b
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read search bits: %w", err)
	}
	blobs := make([][]byte, len(terms))
	var empty []int32 // chunks without a living entry: every bitmap of them goes
	for i, t := range terms {
		k := chunkKey{t, chunks[i]}
		b := stored[k]
		if b == nil {
			b = roaring.New()
		}
		b.AddMany(adds[k])
		if t == termAlive {
			for _, v := range dead[k.chunk] {
				b.Remove(v)
			}
			if b.IsEmpty() {
				empty = append(empty, k.chunk)
			}
		}
		b.RunOptimize()
		if blobs[i], err = b.ToBytes(); err != nil {
			return fmt.Errorf("write search bits %s/%d: %w", t, k.chunk, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_bits (term, chunk, bits)
		SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS bytea[]))
		ON CONFLICT (term, chunk) DO UPDATE SET bits = EXCLUDED.bits`, terms, chunks, blobs); err != nil {
		return fmt.Errorf("write search bits: %w", err)
	}
	if len(empty) > 0 {
		if _, err := tx.ExecContext(ctx, "DELETE FROM search_bits WHERE chunk = ANY(CAST(? AS integer[]))", empty); err != nil {
			return fmt.Errorf("drop empty search bit chunks: %w", err)
		}
	}
	return nil
}

// FoldBits folds every pending entry into the bitmaps (the crawler and the
// bench call it after bulk writes; the worker folds as it goes).
func (s *Service) FoldBits(ctx context.Context) error {
	for {
		n, err := s.st.foldBits(ctx)
		if err != nil || n < bitsBatch {
			return err
		}
	}
}

// foldAll folds until nothing is pending, logging failures (worker tick).
func (s *indexStore) foldAll(ctx context.Context) {
	for {
		n, err := s.foldBits(ctx)
		if err != nil {
			if ctx.Err() == nil {
				slog.WarnContext(ctx, "fold the search bitmaps", "err", err)
			}
			return
		}
		if n < bitsBatch {
			return
		}
	}
}

// bitQuery is what a count evaluates on the bitmaps: the parsed tsquery and
// the masks of the request (each a list of alternative terms, all required).
type bitQuery struct {
	expr  *tsNode
	masks [][]string
}

// terms returns the exact terms and the prefixes the query (and not) reads.
func (q bitQuery) terms(not *tsNode) (exact, prefixes []string) {
	exact = []string{termAlive}
	for _, m := range q.masks {
		exact = append(exact, m...)
	}
	visit := func(n *tsNode) {
		if n.op == tsLexeme {
			if n.prefix {
				prefixes = append(prefixes, n.lexeme)
			} else {
				exact = append(exact, n.lexeme)
			}
		}
	}
	q.expr.walk(visit)
	if not != nil {
		not.walk(visit)
	}
	slices.Sort(exact)
	return slices.Compact(exact), prefixes
}

// loadedBits are the bitmaps a count read: per term (and per prefix, the
// union of its terms) and chunk.
type loadedBits struct {
	exact  map[chunkKey]*roaring.Bitmap
	prefix map[chunkKey]*roaring.Bitmap
	chunks []int32 // chunks with alive entries
	// scope holds per chunk the alive entries passing every mask (the rights
	// and filters of the request): the same for every tier of a search, so
	// it is computed once per chunk
	scope map[int32]*roaring.Bitmap
}

// scoped returns the chunk's alive entries that pass every mask; a mask's
// alternatives (one term per container the caller sees: hundreds) are
// united in one pass (FastOr), not one Or each.
func (l *loadedBits) scoped(masks [][]string, c int32) *roaring.Bitmap {
	if b, ok := l.scope[c]; ok {
		return b
	}
	out := l.exact[chunkKey{termAlive, c}].Clone()
	for _, m := range masks {
		if out.IsEmpty() {
			break
		}
		alts := make([]*roaring.Bitmap, 0, len(m))
		for _, t := range m {
			if b := l.exact[chunkKey{t, c}]; b != nil {
				alts = append(alts, b)
			}
		}
		out.And(roaring.FastOr(alts...))
	}
	if l.scope == nil {
		l.scope = map[int32]*roaring.Bitmap{}
	}
	l.scope[c] = out
	return out
}

func (s *indexStore) loadBits(ctx context.Context, q store.Querier, exact, prefixes []string) (*loadedBits, error) {
	l := &loadedBits{exact: map[chunkKey]*roaring.Bitmap{}, prefix: map[chunkKey]*roaring.Bitmap{}}
	read := func(sql string, args []any, into func(term string, chunk int32, b *roaring.Bitmap)) error {
		rows, err := q.QueryContext(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("read search bits: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var term string
			var chunk int32
			var blob []byte
			if err := rows.Scan(&term, &chunk, &blob); err != nil {
				return fmt.Errorf("read search bits: %w", err)
			}
			b := roaring.New()
			if err := b.UnmarshalBinary(blob); err != nil {
				return fmt.Errorf("read search bits %s/%d: %w", term, chunk, err)
			}
			into(term, chunk, b)
		}
		return rows.Err()
	}
	err := read("SELECT term, chunk, bits FROM search_bits WHERE term = ANY(CAST(? AS text[]))", []any{exact}, func(t string, c int32, b *roaring.Bitmap) {
		l.exact[chunkKey{t, c}] = b
		if t == termAlive {
			l.chunks = append(l.chunks, c)
		}
	})
	if err != nil {
		return nil, err
	}
	for _, p := range prefixes {
		// lexemes sort bytewise (COLLATE "C"): the prefix's terms are one range
		err := read("SELECT term, chunk, bits FROM search_bits WHERE term >= ? AND term < ?", []any{p, p + "\U0010FFFF"}, func(t string, c int32, b *roaring.Bitmap) {
			if strings.HasPrefix(t, "~") {
				return
			}
			k := chunkKey{p, c}
			if u := l.prefix[k]; u != nil {
				u.Or(b)
			} else {
				l.prefix[k] = b
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return l, nil
}

// match evaluates the query (minus not) on every chunk, leaving out the
// pending entries: the matching entries per chunk.
func (l *loadedBits) match(q bitQuery, not *tsNode, pending []int64) map[int32]*roaring.Bitmap {
	skip := map[int32]*roaring.Bitmap{}
	for _, b := range pending {
		c := int32(b >> chunkShift)
		if skip[c] == nil {
			skip[c] = roaring.New()
		}
		skip[c].Add(uint32(b & (1<<chunkShift - 1)))
	}
	out := map[int32]*roaring.Bitmap{}
	for _, c := range l.chunks {
		r := l.eval(q.expr, c)
		if r == nil || r.IsEmpty() {
			continue
		}
		r.And(l.scoped(q.masks, c))
		if sk := skip[c]; sk != nil {
			r.AndNot(sk)
		}
		if not != nil {
			if x := l.eval(not, c); x != nil {
				r.AndNot(x)
			}
		}
		if !r.IsEmpty() {
			out[c] = r
		}
	}
	return out
}

// eval returns a new bitmap of the chunk's entries matching n (nil: none).
func (l *loadedBits) eval(n *tsNode, c int32) *roaring.Bitmap {
	switch n.op {
	case tsLexeme:
		src := l.exact
		if n.prefix {
			src = l.prefix
		}
		if b := src[chunkKey{n.lexeme, c}]; b != nil {
			return b.Clone()
		}
		return nil
	case tsAnd:
		var out *roaring.Bitmap
		for i, a := range n.args {
			r := l.eval(a, c)
			if r == nil {
				return nil
			}
			if i == 0 {
				out = r
			} else {
				out.And(r)
			}
		}
		return out
	default: // tsOr
		out := roaring.New()
		for _, a := range n.args {
			if r := l.eval(a, c); r != nil {
				out.Or(r)
			}
		}
		return out
	}
}

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
