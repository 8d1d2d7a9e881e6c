package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/field"
	"coreportal/internal/outbox"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// createMany validates and inserts new items in the caller's transaction:
// the rows, access-control objects, index entries, first versions and
// created events are the same as create writes for each, in a few
// multi-row statements. errs[i] holds the validation failures of ins[i]
// (nil when it was saved); items[i] is nil for such a row.
func (s *Service) createMany(ctx context.Context, p *auth.Principal, sc *schema, ins []Values) ([]*Item, [][]CellError, error) {
	items := make([]*Item, len(ins))
	errs := make([][]CellError, len(ins))
	var valid []map[string]any
	var at []int
	for i, in := range ins {
		vals, es := s.normalize(ctx, p, sc, in, nil)
		es = append(es, required(sc, vals)...)
		if len(es) > 0 {
			errs[i] = es
			continue
		}
		valid = append(valid, vals)
		at = append(at, i)
	}
	if len(valid) == 0 {
		return items, errs, nil
	}
	if err := s.pause(ctx); err != nil {
		return nil, nil, err
	}
	made, err := s.insertMany(ctx, p, sc, valid)
	if err != nil {
		return nil, nil, err
	}
	for k, i := range at {
		items[i] = made[k]
	}
	return items, errs, nil
}

// insertMany is insert for many items in one transaction.
func (s *Service) insertMany(ctx context.Context, p *auth.Principal, sc *schema, vals []map[string]any) ([]*Item, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	items := make([]*Item, len(vals))
	rows := make([]*row, len(vals))
	for i, v := range vals {
		it := &Item{GUID: newKey(), CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
			Inherits: true, UpdatedName: p.DisplayName, Values: map[string]any{}}
		for _, f := range sc.fields {
			it.Values[f.ID] = v[f.ID]
		}
		if f := sc.field(sysCreatedBy); f != nil {
			it.Values[f.ID] = field.Subject{PrincipalType: "user", ID: p.UserID, Display: p.DisplayName}
		}
		items[i] = it
		rows[i] = &row{GUID: it.GUID, CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now, Inherits: true,
			Cells: cells(sc, it.Values, nil)}
	}
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		nums, err := s.st.insertRows(ctx, sc.list, rows)
		if err != nil {
			return err
		}
		s.itemsChanged(ctx, sc.list.ID)
		refs := make([]acl.Ref, len(items))
		for i, it := range items {
			it.Number = nums[i]
			if f := sc.field(sysItemNumber); f != nil {
				it.Values[f.ID] = it.Number
			}
			refs[i] = itemRef(it.GUID)
		}
		list := listRef(sc.list.ID)
		if err := s.acl.RegisterAll(ctx, refs, &list); err != nil {
			return err
		}
		if err := s.indexCreatedAll(ctx, sc, items); err != nil {
			return err
		}
		if err := s.addFirstVersions(ctx, sc, items, p); err != nil {
			return err
		}
		evs := make([]outbox.Event, len(items))
		for i, it := range items {
			evs[i] = s.eventOf("listItem.created", sc, it, p)
		}
		return outbox.WriteAll(ctx, s.db, evs)
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// insertRows inserts new rows of one schema and returns their numbers in
// the order of rows. The numbers of one statement are drawn in the order of
// its VALUES, so the returned numbers, sorted, follow rows.
func (s *Store) insertRows(ctx context.Context, l *List, rows []*row) ([]int64, error) {
	keys := sortedKeys(rows[0].Cells)
	for _, r := range rows[1:] {
		if !slices.Equal(keys, sortedKeys(r.Cells)) {
			return nil, fmt.Errorf("insert items: rows of different columns")
		}
	}
	cols := []string{"guid", "created_by", "updated_by", "created_at", "updated_at", "inherits_permissions"}
	for _, k := range keys {
		cols = append(cols, safeIdent(k))
	}
	d := s.db.Dialect
	per := max(1, 30000/len(cols)) // below the parameter limits
	out := make([]int64, 0, len(rows))
	for start := 0; start < len(rows); start += per {
		part := rows[start:min(start+per, len(rows))]
		args := make([]any, 0, len(part)*len(cols))
		for _, r := range part {
			args = append(args, idArg(d, r.GUID), idArg(d, r.CreatedBy), idArg(d, r.UpdatedBy), msArg(r.CreatedAt), msArg(r.UpdatedAt), r.Inherits)
			for _, k := range keys {
				args = append(args, r.Cells[k])
			}
		}
		q := "INSERT INTO " + safeIdent(l.Table) + " (" + strings.Join(cols, ", ") + ") VALUES " + store.Tuples(len(part), len(cols)) + " RETURNING id"
		nums, err := s.returnedIDs(ctx, q, args)
		if err != nil {
			return nil, err
		}
		if len(nums) != len(part) {
			return nil, fmt.Errorf("insert items: %d numbers for %d rows", len(nums), len(part))
		}
		slices.Sort(nums)
		out = append(out, nums...)
	}
	return out, nil
}

func (s *Store) returnedIDs(ctx context.Context, q string, args []any) ([]int64, error) {
	rs, err := s.db.W(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("insert items: %w", s.db.Translate(err))
	}
	defer rs.Close()
	var nums []int64
	for rs.Next() {
		var n int64
		if err := rs.Scan(&n); err != nil {
			return nil, fmt.Errorf("insert items: %w", err)
		}
		nums = append(nums, n)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("insert items: %w", s.db.Translate(err))
	}
	return nums, nil
}

// indexCreatedAll is indexCreated for many items.
func (s *Service) indexCreatedAll(ctx context.Context, sc *schema, items []*Item) error {
	if s.index == nil || !sc.list.SearchEnabled {
		return nil
	}
	docs := make([]search.Doc, len(items))
	for i, it := range items {
		docs[i] = itemDoc(sc, sc.fields, it)
		docs[i].Created = true
	}
	if all, ok := s.index.(interface {
		PutAll(ctx context.Context, docs []search.Doc) error
	}); ok {
		return all.PutAll(ctx, docs)
	}
	for _, d := range docs {
		if err := s.index.Put(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// addFirstVersions is addVersion of new items (number 1, "created").
func (s *Service) addFirstVersions(ctx context.Context, sc *schema, items []*Item, p *auth.Principal) error {
	if !sc.list.VersioningEnabled {
		return nil
	}
	for len(items) > 0 {
		n := min(len(items), 1000)
		args := make([]any, 0, n*8)
		for _, it := range items[:n] {
			vals, _ := json.Marshal(it.Values)
			args = append(args, newKey(), sc.list.ID, it.GUID, "created", string(vals), nil, p.UserID, it.UpdatedAt)
		}
		// queued: sent with the transaction's next statement (store.Queue)
		if err := s.db.Queue(ctx, fmt.Sprintf("insert %d first versions (first %s)", n, items[0].GUID), `INSERT INTO list_item_versions
			(id, list_id, item_guid, change_type, field_values, changes, changed_by, created_at, version_number) VALUES `+
			strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, 1), ", n-1)+"(?, ?, ?, ?, ?, ?, ?, ?, 1)", args...); err != nil {
			return err
		}
		items = items[n:]
	}
	return nil
}
