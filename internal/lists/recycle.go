package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/store"
)

// A deleted list keeps its item table and metadata, marked deleted_at, so
// that restore is instant and exact for any size; its recycle-bin entry
// carries the list, fields and views as a snapshot. Purging drops the table.

type binList struct {
	List   ListOut     `json:"list"`
	Views  []*ListView `json:"views"`
	Items  int         `json:"itemCount"`
	Stored string      `json:"content"`
}

// openWithNodeRight loads a list the caller can view and checks min on its
// node (SPEC.md's "Right on node": PATCH needs edit, DELETE and
// recycle-content need delete).
func (s *Service) openWithNodeRight(ctx context.Context, p *auth.Principal, id string, min acl.Level) (*schema, error) {
	sc, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return nil, err
	}
	lvl, err := s.acl.Level(ctx, p, nodes.Ref(sc.list.NodeID))
	if err != nil {
		return nil, err
	}
	if lvl < min {
		return nil, fault.Forbidden("%s right on the node of this list is required", min)
	}
	return sc, nil
}

// DeleteList moves a list with its content to the recycle bin (delete on the node).
func (s *Service) DeleteList(ctx context.Context, p *auth.Principal, id string) error {
	ctx = asViewer(ctx, p)
	sc, err := s.openWithNodeRight(ctx, p, id, acl.Delete)
	if err != nil {
		return err
	}
	if s.bin == nil {
		return fault.New(fault.CodeUnavailable, "the recycle bin is not available")
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		views, err := s.st.views(ctx, id)
		if err != nil {
			return err
		}
		n, err := s.count(ctx, safeIdent(sc.list.Table), "1 = 1", nil)
		if err != nil {
			return err
		}
		// items of this list already in the bin are purged (SPEC.md "Soft deletion")
		if err := s.purgeBinnedItems(ctx, id); err != nil {
			return err
		}
		now := s.now().UTC()
		s.schemaChanged(ctx, id)
		if err := s.st.setDeleted(ctx, id, &now); err != nil {
			return err
		}
		if s.index != nil {
			if err := s.index.RemoveContainer(ctx, id); err != nil {
				return err
			}
		}
		payload, _ := json.Marshal(binList{List: sc.list.out(sc.fields), Views: views, Items: n, Stored: "kept in the list's item table until purge"})
		_, err = s.bin.Add(ctx, BinEntry{NodeID: sc.list.NodeID, Kind: "list", Title: sc.list.Title, DeletedBy: p.UserID, Payload: payload, ResourceID: sc.list.ID})
		return err
	})
}

// RecycleContent moves every item of a list to the recycle bin (delete on the node).
func (s *Service) RecycleContent(ctx context.Context, p *auth.Principal, id string) (int, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.openWithNodeRight(ctx, p, id, acl.Delete)
	if err != nil {
		return 0, err
	}
	listMoved := 0
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		for {
			items, err := s.st.itemsAfter(ctx, sc.list, sc.fields, "id", 0, normaliseBatch)
			if err != nil {
				return err
			}
			for _, it := range items {
				if _, err := s.removeItem(ctx, p, sc, it); err != nil {
					return err
				}
				listMoved++
			}
			if len(items) < normaliseBatch {
				return nil
			}
		}
	})
	return listMoved, err
}

// RestoreList is the recycle-bin restore of kind "list".
func (s *Service) RestoreList(ctx context.Context, payload json.RawMessage) error {
	var b binList
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("list bin payload: %w", err)
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		l, err := s.st.listAny(ctx, b.List.ID)
		if err != nil {
			return fault.NotFound("list")
		}
		if _, err := s.st.listBySlug(ctx, l.NodeID, l.Slug); err == nil {
			return fault.Conflict("the node already has a list with slug %q; rename it first", l.Slug)
		}
		s.itemsChanged(ctx, l.ID)
		s.schemaChanged(ctx, l.ID)
		if err := s.st.setDeleted(ctx, l.ID, nil); err != nil {
			return err
		}
		sc, err := s.load(ctx, l.ID)
		if err != nil {
			return err
		}
		return s.reindexList(ctx, sc)
	})
}

// PurgeList is the recycle-bin purge of kind "list": the table and everything of the list go.
func (s *Service) PurgeList(ctx context.Context, payload json.RawMessage) error {
	var b binList
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("list bin payload: %w", err)
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		l, err := s.st.listAny(ctx, b.List.ID)
		if store.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return s.purgeList(ctx, l)
	})
}

func (s *Service) purgeList(ctx context.Context, l *List) error {
	s.schemaChanged(ctx, l.ID)
	guids, err := s.st.guids(ctx, l)
	if err != nil {
		return err
	}
	as, err := s.st.attachments(ctx, "list_id = ?", l.ID)
	if err != nil {
		return err
	}
	if err := s.dropAttachments(ctx, as); err != nil {
		return err
	}
	refs := []acl.Ref{listRef(l.ID)}
	for _, g := range guids {
		refs = append(refs, itemRef(g))
	}
	if err := s.acl.Forget(ctx, refs...); err != nil {
		return err
	}
	if err := s.st.dropItemTable(ctx, l); err != nil {
		return err
	}
	return s.st.deleteList(ctx, l.ID)
}

// purgeBinnedItems forgets what belongs to items of the list that are in the bin.
func (s *Service) purgeBinnedItems(ctx context.Context, listID string) error {
	if p, ok := s.bin.(interface {
		PurgeWhere(ctx context.Context, kind, scopeID string) error
	}); ok {
		return p.PurgeWhere(ctx, "list_item", listID)
	}
	return nil
}

// RestoreItem is the recycle-bin restore of kind "list_item" (inside the
// bin's transaction, the restoring caller bound to ctx): same number and
// guid; it emits listItem.restored.
func (s *Service) RestoreItem(ctx context.Context, payload json.RawMessage) error {
	var b binItem
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("item bin payload: %w", err)
	}
	var it struct {
		ID          int64          `json:"id"`
		GUID        string         `json:"guid"`
		FieldValues map[string]any `json:"field_values"`
		CreatedAt   time.Time      `json:"created_at"`
		CreatedBy   string         `json:"created_by"`
		UpdatedAt   time.Time      `json:"updated_at"`
		UpdatedBy   string         `json:"updated_by"`
		Inherits    bool           `json:"inherits_permissions"`
	}
	if err := json.Unmarshal(b.Item, &it); err != nil {
		return fmt.Errorf("item bin payload: %w", err)
	}
	sc, err := s.load(ctx, b.ListID)
	if err != nil {
		return fault.Conflict("the list of this item no longer exists")
	}
	vals := map[string]any{}
	for _, f := range sc.fields {
		vals[f.ID] = it.FieldValues[f.ID]
	}
	r := &row{Number: it.ID, GUID: it.GUID, CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy, CreatedAt: it.CreatedAt,
		UpdatedAt: it.UpdatedAt, Inherits: it.Inherits, Cells: cells(sc, vals, nil)}
	_, err = s.st.insertItem(ctx, sc.list, r)
	s.itemsChanged(ctx, sc.list.ID)
	if store.IsUnique(err) {
		return fault.Conflict("an item with this number already exists")
	}
	if err != nil {
		return err
	}
	back := &Item{Number: it.ID, GUID: it.GUID, Values: vals, CreatedBy: it.CreatedBy, UpdatedBy: it.UpdatedBy,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Inherits: it.Inherits}
	if err := s.event(ctx, "listItem.restored", sc, back, auth.FromContext(ctx)); err != nil {
		return err
	}
	return s.indexItem(ctx, sc, sc.fields, back)
}

// PurgeItem is the recycle-bin purge of kind "list_item".
func (s *Service) PurgeItem(ctx context.Context, payload json.RawMessage) error {
	var b binItem
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("item bin payload: %w", err)
	}
	var it struct {
		GUID string `json:"guid"`
	}
	if err := json.Unmarshal(b.Item, &it); err != nil {
		return fmt.Errorf("item bin payload: %w", err)
	}
	sc := &schema{list: &List{ID: b.ListID}}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return s.forgetItem(ctx, sc, it.GUID) })
}

func (s *Store) guids(ctx context.Context, l *List) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT guid FROM "+safeIdent(l.Table))
	if err != nil {
		return nil, fmt.Errorf("item guids: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g any
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out = append(out, idString(g))
	}
	return out, rows.Err()
}
