package search

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

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
		ids, pending := splitPending(logged)
		f := bitFold{adds: map[chunkKey][]uint32{}, alive: map[int64]bool{}}
		if err := f.readEntries(ctx, tx, pending); err != nil {
			return err
		}
		dead := f.deadBits(pending)
		if err := s.writeBits(ctx, tx, f.adds, dead); err != nil {
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

// splitPending returns the log rows' ids and their distinct bit numbers.
func splitPending(logged [][2]int64) (ids, pending []int64) {
	seen := map[int64]bool{}
	ids = make([]int64, 0, len(logged))
	for _, r := range logged {
		ids = append(ids, r[0])
		if !seen[r[1]] {
			seen[r[1]] = true
			pending = append(pending, r[1])
		}
	}
	return ids, pending
}

// bitFold collects the bits one fold sets: per term and chunk, the bit
// numbers (low 16 bits) of the entries carrying the term.
type bitFold struct {
	adds  map[chunkKey][]uint32
	alive map[int64]bool // the pending entries that still exist
}

func (f *bitFold) add(term string, bit int64) {
	k := chunkKey{term, int32(bit >> chunkShift)}
	f.adds[k] = append(f.adds[k], uint32(bit&(1<<chunkShift-1)))
}

// readEntries reads the pending entries that exist and adds their terms.
func (f *bitFold) readEntries(ctx context.Context, tx *store.Tx, pending []int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT bit, CAST(container_id AS text), boundary IS NULL, type, CAST(node_id AS text),
		array_to_string(tsvector_to_array(tsv), ' ') FROM search_entries WHERE bit = ANY(CAST(? AS bigint[]))`, pending)
	if err != nil {
		return fmt.Errorf("read pending search entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var bit int64
		var container, typ, node, lexemes string
		var open bool
		if err := rows.Scan(&bit, &container, &open, &typ, &node, &lexemes); err != nil {
			return fmt.Errorf("read pending search entries: %w", err)
		}
		f.alive[bit] = true
		f.add(termAlive, bit)
		f.add(termIn+container, bit)
		f.add(termType+typ, bit)
		f.add(termNode+node, bit)
		if open {
			f.add(termOpen, bit)
		}
		for _, l := range strings.Fields(lexemes) {
			f.add(l, bit)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read pending search entries: %w", err)
	}
	return nil
}

// deadBits are the pending bits whose entries are gone, per chunk; each such
// chunk's alive bitmap is rewritten even when nothing in it was added.
func (f *bitFold) deadBits(pending []int64) map[int32][]uint32 {
	dead := map[int32][]uint32{}
	for _, b := range pending {
		if !f.alive[b] {
			c := int32(b >> chunkShift)
			dead[c] = append(dead[c], uint32(b&(1<<chunkShift-1)))
		}
	}
	for c := range dead {
		if _, ok := f.adds[chunkKey{termAlive, c}]; !ok {
			f.adds[chunkKey{termAlive, c}] = nil
		}
	}
	return dead
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
