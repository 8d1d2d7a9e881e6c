package lists

import (
	"context"
	"fmt"
)

// RebuildItemTables creates the item table of every list that has none (a
// restore into another database, or of lists deleted since the backup), with
// its indexes and item counter, from the list's stored fields. It runs in
// the caller's transaction.
func (s *Service) RebuildItemTables(ctx context.Context, exists func(table string) bool) (int, error) {
	ids, err := s.st.allListIDs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		l, err := s.st.listAny(ctx, id)
		if err != nil {
			return n, err
		}
		if exists(l.Table) {
			continue
		}
		fields, err := s.st.fields(ctx, id)
		if err != nil {
			return n, err
		}
		if err := s.st.createItemTable(ctx, l, fields); err != nil {
			return n, fmt.Errorf("re-create items of list %s: %w", id, err)
		}
		n++
	}
	return n, nil
}

// SchemasChanged drops every cached list schema on every instance (after a restore).
func (s *Service) SchemasChanged(ctx context.Context) error {
	ids, err := s.st.allListIDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		// an archive may hold person and lookup values as JSON entries:
		// rewrite them into references now (the restored tables are new, so
		// no copy column marks them for the item-table migration)
		l, err := s.st.listAny(ctx, id)
		if err != nil {
			return err
		}
		fields, err := s.st.fields(ctx, id)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if isRefColumn(f) {
				if err := s.compactColumn(ctx, l.Table, f); err != nil {
					return err
				}
			}
		}
		s.schemaChanged(ctx, id)
	}
	return nil
}

// allListIDs returns the id of every list, in the bin or not.
func (s *Store) allListIDs(ctx context.Context) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id FROM lists`)
	if err != nil {
		return nil, fmt.Errorf("list lists: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("scan list id: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
