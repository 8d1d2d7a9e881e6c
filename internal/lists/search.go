package lists

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// UseIndex connects the search index (wiring); saves then keep it in step in
// their own transaction.
func (s *Service) UseIndex(ix search.Index) { s.index = ix }

// fieldsText is the display text of the values of fields, one per line.
// Lookup values are left out: their displays are another list's (or
// library's) text, hidden from some readers of the item, and would go stale
// on the target's renames; person displays (names of people) stay.
func fieldsText(fields []*field.Def, values map[string]any) string {
	var parts []string
	for _, f := range fields {
		v := values[f.ID]
		if v == nil || f.Col == 0 || f.Type == field.Lookup {
			continue
		}
		if t := strings.TrimSpace(displayText(f, v)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func listDoc(l *List) search.Doc {
	return search.Doc{Type: search.TypeList, ID: l.ID, NodeID: l.NodeID, ContainerID: l.ID, Slug: l.Slug,
		Title: l.Title, Body: l.Description, UpdatedAt: l.UpdatedAt}
}

// itemDoc is an item as the index sees it: the title field as title, the
// other fields (without deleted ones: fields is the current schema) as body.
func itemDoc(sc *schema, fields []*field.Def, it *Item) search.Doc {
	title := ""
	body := make([]*field.Def, 0, len(fields))
	for _, f := range fields {
		if f.InternalName == sysTitle {
			title = displayText(f, it.Values[f.ID])
			continue
		}
		body = append(body, f)
	}
	return search.Doc{Type: search.TypeItem, ID: it.GUID, NodeID: sc.list.NodeID, ContainerID: sc.list.ID, Slug: sc.list.Slug,
		Number: it.Number, Title: title, Body: fieldsText(body, it.Values), UpdatedAt: it.UpdatedAt}
}

// indexItem puts an item into the index unless its list is not searchable.
func (s *Service) indexItem(ctx context.Context, sc *schema, fields []*field.Def, it *Item) error {
	if s.index == nil || !sc.list.SearchEnabled {
		return nil
	}
	return s.index.Put(ctx, itemDoc(sc, fields, it))
}

// indexCreated puts an item created in this transaction into the index: it
// hangs directly under its list and inherits (items have no folders), which
// spares the index the lookup of its access chain and the replace.
func (s *Service) indexCreated(ctx context.Context, sc *schema, it *Item) error {
	if s.index == nil || !sc.list.SearchEnabled {
		return nil
	}
	d := itemDoc(sc, sc.fields, it)
	d.Created = true
	return s.index.Put(ctx, d)
}

func (s *Service) unindex(ctx context.Context, ids ...string) error {
	if s.index == nil {
		return nil
	}
	return s.index.Remove(ctx, ids...)
}

// reindexList rebuilds the entries of a list and its items (after a change
// of searchEnabled, slug or title, or a restore); a list that is not
// searchable only loses its entries.
func (s *Service) reindexList(ctx context.Context, sc *schema) error {
	if s.index == nil {
		return nil
	}
	if err := s.index.RemoveContainer(ctx, sc.list.ID); err != nil {
		return err
	}
	if !sc.list.SearchEnabled {
		return nil
	}
	if err := s.index.Put(ctx, listDoc(sc.list)); err != nil {
		return err
	}
	return s.indexSince(ctx, sc, 0)
}

// SearchListsPage is the crawler source of lists: searchable lists after the
// id cursor.
func (s *Service) SearchListsPage(ctx context.Context, after string, limit int) ([]search.Doc, string, error) {
	ls, err := s.st.searchableLists(ctx, after, limit)
	if err != nil {
		return nil, "", err
	}
	docs := make([]search.Doc, 0, len(ls))
	for _, l := range ls {
		docs = append(docs, listDoc(l))
	}
	if len(ls) < limit {
		return docs, "", nil
	}
	return docs, ls[len(ls)-1].ID, nil
}

// SearchItemsPage is the crawler source of items: the items of searchable
// lists, cursor "listId/number".
func (s *Service) SearchItemsPage(ctx context.Context, after string, limit int) ([]search.Doc, string, error) {
	listID, num, _ := strings.Cut(after, "/")
	last, _ := strconv.ParseInt(num, 10, 64)
	var docs []search.Doc
	for len(docs) < limit {
		var sc *schema
		if listID != "" {
			var err error
			if sc, err = s.load(ctx, listID); err != nil {
				sc = nil // gone meanwhile: go on with the next list
			}
		}
		if sc == nil || !sc.list.SearchEnabled {
			ls, err := s.st.searchableLists(ctx, listID, 1)
			if err != nil {
				return nil, "", err
			}
			if len(ls) == 0 {
				return docs, "", nil
			}
			listID, last = ls[0].ID, 0
			continue
		}
		items, err := s.st.itemsAfter(ctx, sc.list, sc.fields, "id", last, limit-len(docs))
		if err != nil {
			return nil, "", fmt.Errorf("crawl items of %s: %w", listID, err)
		}
		for _, it := range items {
			last = it.Number
			docs = append(docs, itemDoc(sc, sc.fields, it))
		}
		if len(docs) < limit {
			ls, err := s.st.searchableLists(ctx, listID, 1)
			if err != nil {
				return nil, "", err
			}
			if len(ls) == 0 {
				return docs, "", nil
			}
			listID, last = ls[0].ID, 0
		}
	}
	return docs, listID + "/" + strconv.FormatInt(last, 10), nil
}

// SearchItemsCount estimates the items of searchable lists (crawler progress):
// the per-list item counters, so lists not counted yet add nothing.
func (s *Service) SearchItemsCount(ctx context.Context) (int, error) {
	var n int
	err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT COALESCE(SUM(c.n), 0) FROM list_item_counts c JOIN lists l ON l.id = c.list_id
		WHERE l.deleted_at IS NULL AND l.search_enabled = ?`, true).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count searchable items: %w", err)
	}
	return n, nil
}

// searchableLists are the lists not in the bin with searchEnabled, by id after the cursor.
func (s *Store) searchableLists(ctx context.Context, after string, limit int) ([]*List, error) {
	q := "SELECT " + listColumns + " FROM lists WHERE deleted_at IS NULL AND search_enabled = ?"
	args := []any{true}
	if after != "" {
		q += " AND id > ?"
		args = append(args, after)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, q+" ORDER BY id LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("searchable lists: %w", err)
	}
	defer rows.Close()
	var out []*List
	for rows.Next() {
		l, err := scanList(rows)
		if err != nil {
			return nil, fmt.Errorf("searchable lists: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// reindexBatch is how many items one transaction of ReindexSubject re-indexes.
const reindexBatch = 500

// ReindexSubject re-indexes the items of searchable lists whose person
// fields name the user or group id (after its rename: their search text
// holds its name), in transactions of reindexBatch items; it reports how
// many it re-indexed.
func (s *Service) ReindexSubject(ctx context.Context, id string) (int, error) {
	if s.index == nil {
		return 0, nil
	}
	n, after := 0, ""
	for {
		ls, err := s.st.searchableLists(ctx, after, 100)
		if err != nil {
			return n, err
		}
		for _, l := range ls {
			k, err := s.reindexNaming(ctx, l.ID, id)
			if err != nil {
				return n, fmt.Errorf("re-index items naming %s in %s: %w", id, l.ID, err)
			}
			n += k
		}
		if len(ls) < 100 {
			return n, nil
		}
		after = ls[len(ls)-1].ID
	}
}

// reindexNaming re-indexes the items of one list whose person fields name
// id. Each batch reads the list anew in its transaction and holds it (on
// PostgreSQL a share lock on its row): a list switched off searchEnabled,
// deleted or changed meanwhile is not indexed from a stale copy.
func (s *Service) reindexNaming(ctx context.Context, listID, id string) (int, error) {
	n, last := 0, int64(0)
	for {
		k := 0
		err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			if ok, err := s.st.holdSearchable(ctx, listID); err != nil || !ok {
				return err
			}
			sc, err := s.load(ctx, listID)
			if err != nil || !sc.list.SearchEnabled {
				return err
			}
			var conds []string
			var args []any
			for _, f := range sc.fields {
				if f.Type != field.Person {
					continue // created_by included: its name is in the search text too
				}
				c, a, err := field.MustOf(f).Filter(f, field.OpEq, field.Operand{Value: id})
				if err != nil {
					return err
				}
				conds, args = append(conds, c), append(args, a...)
			}
			if len(conds) == 0 {
				return nil
			}
			items, err := s.st.itemsWhere(ctx, sc.list, sc.fields, strings.Join(conds, " OR "), args, last, reindexBatch)
			if err != nil {
				return err
			}
			for _, it := range items {
				if err := s.indexItem(ctx, sc, sc.fields, it); err != nil {
					return err
				}
				last = it.Number
			}
			k = len(items)
			return nil
		})
		if fault.Is(err, fault.CodeNotFound) {
			return n, nil // gone meanwhile
		}
		if err != nil {
			return n, err
		}
		n += k
		if k < reindexBatch {
			return n, nil
		}
	}
}

// holdSearchable reports whether the list exists, is not in the bin and is
// searchable; on PostgreSQL it share-locks the list's row for the caller's
// transaction, so a concurrent switch of searchEnabled (which removes the
// list's entries) waits for the entries written meanwhile.
func (s *Store) holdSearchable(ctx context.Context, listID string) (bool, error) {
	q := "SELECT 1 FROM lists WHERE id = ? AND deleted_at IS NULL AND search_enabled = ?"
	if s.db.Dialect == store.Postgres {
		q += " FOR SHARE"
	}
	var one int
	err := s.db.W(ctx).QueryRowContext(ctx, q, listID, true).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hold list %s: %w", listID, err)
	}
	return true, nil
}
