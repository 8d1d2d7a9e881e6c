package lists

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// CellError is a validation failure of one value (quick edit reports them per cell).
type CellError struct {
	FieldID string `json:"fieldId"`
	Message string `json:"message"`
}

// Values are request field values keyed by field UUID or internal_name.
type Values map[string]json.RawMessage

// normalize validates request values; the result is keyed by field UUID.
// Values of created_by and item_number are ignored: the server maintains them.
// normalize validates and normalises written values. kept are the item's
// stored values on update: a lookup entry it already holds is kept as it is
// (a caller may send a form back unchanged without seeing every target).
func (s *Service) normalize(ctx context.Context, p *auth.Principal, sc *schema, in Values, kept map[string]any) (map[string]any, []CellError) {
	out := map[string]any{}
	var errs []CellError
	given := map[string]string{}                       // field id -> the key that named it
	for _, key := range slices.Sorted(maps.Keys(in)) { // errors in a stable order
		raw := in[key]
		f, ok := sc.resolve(key)
		if !ok || isMeta(f) {
			errs = append(errs, CellError{FieldID: key, Message: "unknown field " + key})
			continue
		}
		if first, dup := given[f.ID]; dup {
			errs = append(errs, CellError{FieldID: f.ID, Message: fmt.Sprintf("field %s is given twice (as %q and %q)", f.InternalName, first, key)})
			continue
		}
		given[f.ID] = key
		if !editable(f) {
			continue
		}
		v, err := field.MustOf(f).Normalize(ctx, f, raw, env{s, p, kept})
		if err != nil {
			errs = append(errs, CellError{FieldID: f.ID, Message: err.Error()})
			continue
		}
		out[f.ID] = v
	}
	return out, errs
}

// required checks every required field of the merged values.
func required(sc *schema, values map[string]any) []CellError {
	var errs []CellError
	for _, f := range sc.fields {
		if f.Required && editable(f) && values[f.ID] == nil {
			errs = append(errs, CellError{FieldID: f.ID, Message: f.Title + " is required"})
		}
	}
	return errs
}

func cellFault(errs []CellError) error {
	e := fault.Validation(errs[0].FieldID, "%s", errs[0].Message)
	return e.With("errors", errs)
}

// cells are the column values of every field in values.
func cells(sc *schema, values map[string]any, only map[string]any) field.Cells {
	c := field.Cells{}
	for _, f := range sc.fields {
		if f.Col == 0 {
			continue
		}
		if only != nil {
			if _, ok := only[f.ID]; !ok {
				continue
			}
		}
		for k, v := range field.MustOf(f).Cells(f, values[f.ID]) {
			c[k] = v
		}
	}
	return c
}

func (s *Service) permissions(ctx context.Context, p *auth.Principal, it *Item) (*ItemPermissions, error) {
	lvl, err := s.acl.Level(ctx, p, itemRef(it.GUID))
	if err != nil {
		return nil, err
	}
	return flags(p, lvl), nil
}

func flags(p *auth.Principal, lvl acl.Level) *ItemPermissions {
	return &ItemPermissions{CanEdit: lvl >= acl.Edit, CanDelete: lvl >= acl.Delete, CanManagePermissions: p.IsAdmin && lvl >= acl.Edit}
}

func (s *Service) present(ctx context.Context, p *auth.Principal, it *Item) (ItemOut, error) {
	if it.UpdatedName == "" {
		names, err := s.st.userNames(ctx, []string{it.UpdatedBy})
		if err != nil {
			return ItemOut{}, err
		}
		it.UpdatedName = names[it.UpdatedBy]
	}
	perm, err := s.permissions(ctx, p, it)
	if err != nil {
		return ItemOut{}, err
	}
	return it.out(perm), nil
}

// CreateItem adds an item (add on the list).
func (s *Service) CreateItem(ctx context.Context, p *auth.Principal, listID string, in Values) (ItemOut, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.Add)
	if err != nil {
		return ItemOut{}, err
	}
	it, errs, err := s.create(ctx, p, sc, in)
	if err != nil {
		return ItemOut{}, err
	}
	if errs != nil {
		return ItemOut{}, cellFault(errs)
	}
	// a new item inherits and has no records of its own: its level is the list's
	lvl, err := s.acl.Level(ctx, p, listRef(listID))
	if err != nil {
		return ItemOut{}, err
	}
	return it.out(flags(p, lvl)), nil
}

// create validates and inserts one item; validation failures come back as
// cell errors, other failures as err.
func (s *Service) create(ctx context.Context, p *auth.Principal, sc *schema, in Values) (*Item, []CellError, error) {
	vals, errs := s.normalize(ctx, p, sc, in, nil)
	errs = append(errs, required(sc, vals)...)
	if len(errs) > 0 {
		return nil, errs, nil
	}
	it, err := s.insert(ctx, p, sc, vals)
	if err != nil {
		return nil, nil, err
	}
	return it, nil, nil
}

func (s *Service) insert(ctx context.Context, p *auth.Principal, sc *schema, vals map[string]any) (*Item, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	it := &Item{GUID: newKey(), CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now,
		Inherits: true, UpdatedName: p.DisplayName, Values: map[string]any{}}
	for _, f := range sc.fields {
		it.Values[f.ID] = vals[f.ID]
	}
	if f := sc.field(sysCreatedBy); f != nil {
		it.Values[f.ID] = field.Subject{PrincipalType: "user", ID: p.UserID, Display: p.DisplayName}
	}
	if err := s.pause(ctx); err != nil {
		return nil, err
	}
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		r := &row{GUID: it.GUID, CreatedBy: p.UserID, UpdatedBy: p.UserID, CreatedAt: now, UpdatedAt: now, Inherits: true,
			Cells: cells(sc, it.Values, nil)}
		n, err := s.st.insertItem(ctx, sc.list, r)
		if err != nil {
			return err
		}
		it.Number = n
		s.itemsChanged(ctx, sc.list.ID)
		if f := sc.field(sysItemNumber); f != nil {
			it.Values[f.ID] = n
		}
		list := listRef(sc.list.ID)
		if err := s.acl.Register(ctx, itemRef(it.GUID), &list); err != nil {
			return err
		}
		if err := s.indexCreated(ctx, sc, it); err != nil {
			return err
		}
		if err := s.addVersion(ctx, sc, it, nil, p); err != nil {
			return err
		}
		return s.event(ctx, "listItem.created", sc, it, p)
	})
	if err != nil {
		return nil, err
	}
	return it, nil
}

// GetItem returns one item by number or guid (view on the item).
func (s *Service) GetItem(ctx context.Context, p *auth.Principal, listID, ref string) (ItemOut, error) {
	ctx = asViewer(ctx, p)
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return ItemOut{}, err
	}
	_ = sc
	return s.present(ctx, p, it)
}

// itemFor loads list and item and checks min on the item.
func (s *Service) itemFor(ctx context.Context, p *auth.Principal, listID, ref string, min acl.Level) (*schema, *Item, error) {
	sc, err := s.load(ctx, listID)
	if err != nil {
		return nil, nil, err
	}
	if min > acl.View {
		// changing or deleting an item also needs view on its list (SPEC ACL rule 8)
		if err := s.acl.Require(ctx, p, listRef(listID), acl.View); err != nil {
			return nil, nil, err
		}
	}
	it, err := s.findItem(ctx, sc, ref)
	if fault.Is(err, fault.CodeNotFound) {
		// a caller who cannot open the list learns nothing about its items
		if lerr := s.acl.Require(ctx, p, listRef(listID), acl.View); lerr != nil {
			return nil, nil, lerr
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.acl.Require(ctx, p, itemRef(it.GUID), min); err != nil {
		return nil, nil, err
	}
	return sc, it, nil
}

// UpdateItem merges values into an item (edit on the item), then validates the whole set.
func (s *Service) UpdateItem(ctx context.Context, p *auth.Principal, listID, ref string, in Values) (ItemOut, error) {
	ctx = asViewer(ctx, p)
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.Edit)
	if err != nil {
		return ItemOut{}, err
	}
	errs, err := s.update(ctx, p, sc, it, in)
	if err != nil {
		return ItemOut{}, err
	}
	if errs != nil {
		return ItemOut{}, cellFault(errs)
	}
	return s.present(ctx, p, it)
}

// update merges, validates and saves; it is updated in place. Validation
// failures come back as cell errors, other failures as err.
func (s *Service) update(ctx context.Context, p *auth.Principal, sc *schema, it *Item, in Values) ([]CellError, error) {
	vals, errs := s.normalize(ctx, p, sc, in, it.Values)
	if len(errs) > 0 {
		return errs, nil
	}
	prev := make(map[string]any, len(it.Values))
	for k, v := range it.Values {
		prev[k] = v
	}
	for k, v := range vals {
		it.Values[k] = v
	}
	if errs := required(sc, it.Values); len(errs) > 0 {
		it.Values = prev
		return errs, nil
	}
	if unchanged(vals, prev) {
		// nothing to save: no write, no version, no event, updated_at stays
		return nil, nil
	}
	it.UpdatedBy, it.UpdatedAt, it.UpdatedName = p.UserID, s.now().UTC().Truncate(time.Millisecond), p.DisplayName
	if err := s.pause(ctx); err != nil {
		it.Values = prev
		return nil, err
	}
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		r := &row{Number: it.Number, UpdatedBy: p.UserID, UpdatedAt: it.UpdatedAt,
			Cells: cells(sc, it.Values, vals)}
		if err := s.st.updateItem(ctx, sc.list, r); err != nil {
			return err
		}
		s.itemsChanged(ctx, sc.list.ID)
		if err := s.indexItem(ctx, sc, sc.fields, it); err != nil {
			return err
		}
		if err := s.addVersion(ctx, sc, it, prev, p); err != nil {
			return err
		}
		if err := s.event(ctx, "listItem.updated", sc, it, p); err != nil {
			return err
		}
		if s.publish != nil {
			snap := syncItem(it)
			// one frame goes to every subscriber who can view the item, not
			// necessarily its lookup targets: no lookup display travels
			snap.FieldValues = withoutLookupDisplays(sc.fields, it.Values)
			listID, number := sc.list.ID, it.Number
			store.AfterCommit(ctx, func() { s.publish(context.WithoutCancel(ctx), listID, number, snap) })
		}
		return nil
	})
	if err != nil {
		it.Values = prev
		return nil, err
	}
	return nil, nil
}

// unchanged tells whether every merged value equals the stored one (a
// save of an unchanged form, an empty fieldValues).
func unchanged(vals, prev map[string]any) bool {
	for k, v := range vals {
		if !sameJSON(prev[k], v) {
			return false
		}
	}
	return true
}

// errText is the message of a non-validation failure inside a per-row operation.
func errText(ctx context.Context, err error) string {
	if fe, ok := fault.As(err); ok {
		return fe.Message
	}
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return rowCancelled
	case store.IsUnavailable(err):
		return rowUnavailable
	}
	slog.ErrorContext(ctx, "list item save failed", "err", err)
	return "internal error"
}

// Messages of rows that failed for reasons outside the row itself.
const (
	rowCancelled   = "cancelled: the request ended (the client went away) before this row was saved"
	rowUnavailable = "the database is unavailable; this row was not saved"
)

// DeletedItem is the answer of an item delete.
type DeletedItem struct {
	RecycleBinEntryID *string `json:"recycleBinEntryId" format:"uuid" doc:"the recycle-bin entry that holds the item (restore it with POST /nodes/{nodeId}/recycle-bin/{entryId}/restore); null when the service keeps no recycle bin"`
}

// DeleteItem moves an item to the recycle bin (delete on the item) and
// answers the bin entry's id.
func (s *Service) DeleteItem(ctx context.Context, p *auth.Principal, listID, ref string) (DeletedItem, error) {
	ctx = asViewer(ctx, p)
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.Delete)
	if err != nil {
		return DeletedItem{}, err
	}
	var out DeletedItem
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		id, err := s.removeItem(ctx, p, sc, it)
		out.RecycleBinEntryID = nil
		if id != "" {
			out.RecycleBinEntryID = &id
		}
		return err
	})
	if err != nil {
		return DeletedItem{}, err
	}
	return out, nil
}

// binItem is the recycle-bin payload of a deleted item.
type binItem struct {
	ListID string          `json:"listId"`
	Item   json.RawMessage `json:"item"`
}

// removeItem deletes an item into the recycle bin and answers the bin
// entry's id ("" without a bin).
func (s *Service) removeItem(ctx context.Context, p *auth.Principal, sc *schema, it *Item) (string, error) {
	if err := s.st.deleteItem(ctx, sc.list, it.Number); err != nil {
		return "", err
	}
	if err := s.unindex(ctx, it.GUID); err != nil {
		return "", err
	}
	s.itemsChanged(ctx, sc.list.ID)
	snap, _ := json.Marshal(it.out(nil))
	entryID := ""
	if s.bin != nil {
		payload, _ := json.Marshal(binItem{ListID: sc.list.ID, Item: snap})
		title := displayText(sc.field(sysTitle), it.Values[sc.field(sysTitle).ID])
		id, err := s.bin.Add(ctx, BinEntry{NodeID: sc.list.NodeID, Kind: "list_item", Title: title, DeletedBy: p.UserID, ScopeID: sc.list.ID, Payload: payload, ResourceID: it.GUID})
		if err != nil {
			return "", fmt.Errorf("recycle item %d: %w", it.Number, err)
		}
		entryID = id
	} else if err := s.forgetItem(ctx, sc, it.GUID); err != nil {
		return "", err
	}
	return entryID, s.event(ctx, "listItem.deleted", sc, it, p)
}

// forgetItem drops what belongs to an item that is gone for good.
func (s *Service) forgetItem(ctx context.Context, sc *schema, guid string) error {
	if err := s.purgeAttachments(ctx, sc.list.ID, guid); err != nil {
		return err
	}
	if err := s.st.deleteVersions(ctx, guid); err != nil {
		return err
	}
	return s.acl.Forget(ctx, itemRef(guid))
}

// ItemInheritance is the item's inheritance state.
type ItemInheritance struct {
	InheritsPermissions bool   `json:"inheritsPermissions"`
	ParentLabel         string `json:"parentLabel"`
}

// ItemPermissionSettings returns the inheritance flag (view on the item).
func (s *Service) ItemPermissionSettings(ctx context.Context, p *auth.Principal, listID, ref string) (ItemInheritance, error) {
	ctx = asViewer(ctx, p)
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return ItemInheritance{}, err
	}
	inh, err := s.acl.Inherits(ctx, itemRef(it.GUID))
	if err != nil {
		return ItemInheritance{}, err
	}
	return ItemInheritance{InheritsPermissions: inh, ParentLabel: sc.list.Title}, nil
}

// SetItemInheritance breaks or restores inheritance (administrators).
func (s *Service) SetItemInheritance(ctx context.Context, p *auth.Principal, listID, ref string, inherit bool) (ItemInheritance, error) {
	ctx = asViewer(ctx, p)
	if !p.IsAdmin {
		return ItemInheritance{}, fault.Forbidden("only administrators change item permission inheritance")
	}
	sc, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return ItemInheritance{}, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		// the item's row first, as every save that re-indexes the item
		// locks it before the index locks the item's access-control object
		if err := s.st.setItemInherits(ctx, sc.list, it.Number, inherit); err != nil {
			return err
		}
		s.itemsChanged(ctx, sc.list.ID)
		return s.acl.SetInherits(ctx, itemRef(it.GUID), inherit)
	})
	if err != nil {
		return ItemInheritance{}, err
	}
	return ItemInheritance{InheritsPermissions: inherit, ParentLabel: sc.list.Title}, nil
}

// SyncItem is the live/sync-state shape of an item.
type SyncItem struct {
	ID            int64          `json:"id"`
	UpdatedAt     string         `json:"updated_at"`
	UpdatedBy     string         `json:"updated_by"`
	UpdatedByUser ItemUserRef    `json:"updated_by_user"`
	FieldValues   map[string]any `json:"field_values"`
}

func syncItem(it *Item) SyncItem {
	return SyncItem{ID: it.Number, UpdatedAt: stamp(it.UpdatedAt), UpdatedBy: it.UpdatedBy,
		UpdatedByUser: ItemUserRef{DisplayName: it.UpdatedName}, FieldValues: it.Values}
}
