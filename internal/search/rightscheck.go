package search

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"

	"coreportal/internal/store"
)

// RightsCheck is the result of the crawler's consistency pass over the
// access chains stored with item and file entries.
type RightsCheck struct {
	Checked  int `json:"checked" doc:"item and file entries compared with the access-control registry"`
	Repaired int `json:"repaired" doc:"entries whose stored access chain (isolated object, folders) differed from the registry's and was rewritten"`
	Removed  int `json:"removed" doc:"entries of items and files no longer registered, removed"`
}

// CheckRights is the crawler's consistency pass: it compares the access
// chain stored with every item and file entry (the nearest isolated object
// and the folders up to it, which decide who finds the entry) with the
// chain the access-control registry gives now, rewrites the chains that
// differ and removes the entries of resources that are no longer
// registered. It runs batch by batch, each batch in one transaction with
// its chains locked as index writes lock them, so it never undoes a
// concurrent rights change.
func (s *Service) CheckRights(ctx context.Context) (RightsCheck, error) {
	var out RightsCheck
	after := ""
	for {
		var n int
		err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			es, err := s.st.chainedEntries(ctx, after, s.crawlBatch)
			if err != nil || len(es) == 0 {
				return err
			}
			n, after = len(es), es[len(es)-1].ID
			return s.checkBatch(ctx, es, &out)
		})
		if err != nil {
			return out, fmt.Errorf("check index rights: %w", err)
		}
		if n < s.crawlBatch {
			break
		}
	}
	if out.Repaired > 0 || out.Removed > 0 {
		slog.WarnContext(ctx, "search index: entries whose rights differed from the access-control registry",
			"repaired", out.Repaired, "removed", out.Removed, "checked", out.Checked)
	}
	return out, nil
}

// checkBatch compares and repairs the chains of one batch of entries.
func (s *Service) checkBatch(ctx context.Context, es []*entry, out *RightsCheck) error {
	if err := s.st.chains(ctx, es); err != nil {
		return err
	}
	stored, err := s.st.storedChains(ctx, es)
	if err != nil {
		return err
	}
	keep, gone := registered(es)
	if err := s.st.remove(ctx, gone); err != nil {
		return err
	}
	var differ []*entry
	for _, e := range keep {
		want := append([]string{}, e.Scopes...)
		slices.Sort(want)
		got := stored[e.ID]
		slices.Sort(got.scopes)
		if got.boundary != e.Boundary || !slices.Equal(got.scopes, want) {
			differ = append(differ, e)
		}
	}
	if len(differ) > 0 {
		if err := s.st.rescope(ctx, differ); err != nil {
			return err
		}
	}
	out.Checked += len(es)
	out.Repaired += len(differ)
	out.Removed += len(gone)
	return nil
}

// chainedEntries returns up to limit item and file entries after the id
// after ("" = from the start), in id order.
func (s *indexStore) chainedEntries(ctx context.Context, after string, limit int) ([]*entry, error) {
	q := "SELECT id, container_id FROM search_entries WHERE type IN (?, ?)"
	args := []any{TypeItem, TypeFile}
	if after != "" {
		q += " AND id > ?"
		args = append(args, after)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, q+" ORDER BY id LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("entries to check: %w", err)
	}
	defer rows.Close()
	var out []*entry
	for rows.Next() {
		e := &entry{}
		if err := rows.Scan(&e.ID, &e.ContainerID); err != nil {
			return nil, fmt.Errorf("entries to check: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// storedChain is the access chain an entry holds: its boundary and its
// scopes.
type storedChain struct {
	boundary string
	scopes   []string
}

// storedChains reads the stored access chains of entries.
func (s *indexStore) storedChains(ctx context.Context, es []*entry) (map[string]storedChain, error) {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	out := map[string]storedChain{}
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT id, boundary FROM search_entries WHERE id IN "+s.idList(), jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("stored chains: %w", err)
	}
	for rows.Next() {
		var id string
		var b sql.NullString
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return nil, fmt.Errorf("stored chains: %w", err)
		}
		out[id] = storedChain{boundary: b.String}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stored chains: %w", err)
	}
	rows, err = s.db.Q(ctx).QueryContext(ctx, "SELECT entry_id, object_id FROM search_scopes WHERE entry_id IN "+s.idList(), jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("stored scopes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, o string
		if err := rows.Scan(&id, &o); err != nil {
			return nil, fmt.Errorf("stored scopes: %w", err)
		}
		c := out[id]
		c.scopes = append(c.scopes, o)
		out[id] = c
	}
	return out, rows.Err()
}
