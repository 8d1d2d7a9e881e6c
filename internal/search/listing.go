package search

import (
	"context"
	"fmt"
	"strings"

	"coreportal/internal/store"
)

// ItemsMatching is what list listings need from the index for their `q`
// parameter: a SQL condition on the item table's number column (id) that
// holds for the items of list listID whose indexed text (title and body, as
// the lists capability put them) contains q, compared case-insensitively
// with cp_lower (Go's strings.ToLower on SQLite, lower() on PostgreSQL), the
// same folding as the rest of a listing: no stemming, no ё/е folding. q is
// passed as a parameter, never as SQL text. Entries exist only for lists
// with searchEnabled; the caller falls back to its own columns otherwise.
func ItemsMatching(listID, q string) (string, []any) {
	p := "%" + likeEscapeListing(strings.ToLower(q)) + "%"
	return "id IN (SELECT number FROM search_entries WHERE container_id = ? AND type = '" + TypeItem +
		"' AND (cp_lower(title) LIKE ? ESCAPE '\\' OR cp_lower(body) LIKE ? ESCAPE '\\'))", []any{listID, p, p}
}

func likeEscapeListing(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ItemEntries counts the index entries of a list's items, so that lists can
// tell a complete index from one that misses items.
func ItemEntries(ctx context.Context, db *store.DB, listID string) (int, error) {
	var n int
	err := db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM search_entries WHERE container_id = ? AND type = '"+TypeItem+"'", listID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("index entries of list %s: %w", listID, err)
	}
	return n, nil
}
