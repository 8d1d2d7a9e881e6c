package lists

import (
	"context"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// SeedItems inserts many items in one transaction with multi-row INSERTs,
// registering each in the ACL. It is for benchmarks and fixtures: values are
// validated like a create, but no versions and no outbox events are written.
func (s *Service) SeedItems(ctx context.Context, p *auth.Principal, listID string, rows []Values) error {
	sc, err := s.load(ctx, listID)
	if err != nil {
		return err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	batch := make([]*row, 0, len(rows))
	for i, in := range rows {
		vals, errs := s.normalize(ctx, p, sc, in, nil)
		errs = append(errs, required(sc, vals)...)
		if len(errs) > 0 {
			return fault.Validation(errs[0].FieldID, "row %d: %s", i, errs[0].Message)
		}
		batch = append(batch, &row{GUID: newKey(), CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
			Inherits: true, Cells: cells(sc, vals, nil)})
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		var last int64
		if err := s.db.W(ctx).QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM "+safeIdent(sc.list.Table)).Scan(&last); err != nil {
			return fmt.Errorf("seed items: %w", err)
		}
		if err := s.st.insertItems(ctx, sc.list, batch); err != nil {
			return err
		}
		if err := s.indexSince(ctx, sc, last); err != nil {
			return err
		}
		s.itemsChanged(ctx, sc.list.ID)
		list := listRef(sc.list.ID)
		for _, r := range batch {
			if err := s.acl.Register(ctx, itemRef(r.GUID), &list); err != nil {
				return err
			}
		}
		return nil
	})
}

// insertItems writes rows with multi-row INSERTs (all rows carry the same cell columns).
func (s *Store) insertItems(ctx context.Context, l *List, rows []*row) error {
	if len(rows) == 0 {
		return nil
	}
	keys := sortedKeys(rows[0].Cells)
	cols := append([]string{"guid", "created_by", "updated_by", "created_at", "updated_at", "inherits_permissions"}, keys...)
	for _, c := range keys {
		safeIdent(c)
	}
	per := max(1, 30000/len(cols)) // stay below parameter limits
	for start := 0; start < len(rows); start += per {
		end := min(start+per, len(rows))
		q := "INSERT INTO " + safeIdent(l.Table) + " (" + strings.Join(cols, ", ") + ") VALUES " + store.Tuples(end-start, len(cols))
		args := make([]any, 0, (end-start)*len(cols))
		for _, r := range rows[start:end] {
			d := s.db.Dialect
			args = append(args, idArg(d, r.GUID), idArg(d, r.CreatedBy), idArg(d, r.UpdatedBy), msArg(r.CreatedAt), msArg(r.UpdatedAt), r.Inherits)
			for _, k := range keys {
				args = append(args, r.Cells[k])
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("insert items: %w", err)
		}
	}
	return nil
}

// indexSince indexes the items numbered after last (seeded without entries).
func (s *Service) indexSince(ctx context.Context, sc *schema, last int64) error {
	if s.index == nil || !sc.list.SearchEnabled {
		return nil
	}
	for {
		items, err := s.st.itemsAfter(ctx, sc.list, sc.fields, "id", last, normaliseBatch)
		if err != nil {
			return err
		}
		for _, it := range items {
			last = it.Number
			if err := s.indexItem(ctx, sc, sc.fields, it); err != nil {
				return err
			}
		}
		if len(items) < normaliseBatch {
			return nil
		}
	}
}
