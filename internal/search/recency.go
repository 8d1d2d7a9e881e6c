package search

import (
	"context"
	"fmt"
	"strings"
)

// seqSlots is how many entries one millisecond of updated_at holds in the
// SQLite seq: seq = updated_at in Unix milliseconds * seqSlots + slot, so
// that the FTS5 rowid (= seq) orders entries newest first and a page of
// results is read in the index's own order (until the year 2109).
const seqSlots = 1 << 21

// recencySeqs assigns each entry a seq after the entries already indexed
// in its millisecond (one query for the batch). SQLite has a single
// writer, so no other transaction takes the same slots meanwhile.
func (s *indexStore) recencySeqs(ctx context.Context, es []*entry) ([]int64, error) {
	buckets := make([]int64, 0, len(es))
	next := map[int64]int64{}
	for _, e := range es {
		b := e.UpdatedAt.UnixMilli()
		if _, ok := next[b]; !ok {
			next[b] = b * seqSlots
			buckets = append(buckets, b)
		}
	}
	var list strings.Builder
	list.WriteString("[")
	for i, b := range buckets {
		if i > 0 {
			list.WriteString(",")
		}
		fmt.Fprintf(&list, "%d", b)
	}
	list.WriteString("]")
	rows, err := s.db.W(ctx).QueryContext(ctx, `SELECT b.value, (SELECT max(seq) FROM search_entries WHERE seq >= b.value * ? AND seq < (b.value + 1) * ?)
		FROM json_each(?) b`, seqSlots, seqSlots, list.String())
	if err != nil {
		return nil, fmt.Errorf("index order: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b int64
		var last *int64
		if err := rows.Scan(&b, &last); err != nil {
			return nil, fmt.Errorf("index order: %w", err)
		}
		if last != nil {
			next[b] = *last + 1
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index order: %w", err)
	}
	out := make([]int64, len(es))
	for i, e := range es {
		b := e.UpdatedAt.UnixMilli()
		seq := next[b]
		if seq >= (b+1)*seqSlots { // 2 million entries saved with the same millisecond
			return nil, fmt.Errorf("index order: more than %d entries updated at %s", seqSlots, e.UpdatedAt)
		}
		out[i], next[b] = seq, seq+1
	}
	return out, nil
}
