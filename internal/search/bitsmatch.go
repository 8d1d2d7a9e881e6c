package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"coreportal/internal/store"
)

// Evaluation of a query on the bitmaps of the count index (bits.go).

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
