package lists

import (
	"context"
	"reflect"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// Fields returns the fields of a list (view).
func (s *Service) Fields(ctx context.Context, p *auth.Principal, listID string) ([]FieldOut, error) {
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return nil, err
	}
	return fieldsOut(sc.fields), nil
}

// FieldInput is the body of field create and update; nil keys stay unchanged on update.
type FieldInput = field.Input

const maxFields = 200

// CreateField adds a field (edit on the list): metadata and DDL in one transaction.
func (s *Service) CreateField(ctx context.Context, p *auth.Principal, listID string, in FieldInput) (FieldOut, error) {
	sc, err := s.open(ctx, p, listID, acl.Edit)
	if err != nil {
		return FieldOut{}, err
	}
	l := sc.list
	f, err := s.newField(ctx, p, l.ID, sc.byName, len(sc.fields), in)
	if err != nil {
		return FieldOut{}, err
	}
	l.UpdatedAt = s.now().UTC()
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.schemaChanged(ctx, l.ID)
		// the column number comes from the row itself, inside the transaction:
		// a cached or concurrent snapshot of next_col is never written back
		next, err := s.st.allocColumn(ctx, l.ID, l.UpdatedAt)
		if store.IsNotFound(err) {
			return fault.NotFound("list")
		}
		if err != nil {
			return err
		}
		l.NextCol, f.Col = next, next-1
		defaultName(f, sc.byName)
		if err := s.st.insertField(ctx, f, l.UpdatedAt); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("the list already has a field %q", f.InternalName).With("field", "internalName")
			}
			return err
		}
		return s.st.addColumns(ctx, l, f)
	})
	if err != nil {
		return FieldOut{}, err
	}
	return fieldsOut([]*field.Def{f})[0], nil
}

func (s *Service) checkLookupTarget(ctx context.Context, p *auth.Principal, st field.FieldSettings) error {
	if st.LookupListID == "" {
		if s.libs == nil {
			return fault.Validation("settings.lookupLibraryId", "document libraries are not available")
		}
		return s.libs.CheckTarget(ctx, p, st.LookupLibraryID, st.LookupNodeID, st.LookupFieldID)
	}
	// the caller must see the target list; missing and hidden answer alike
	notFound := fault.NotFound("lookup list").With("field", "settings.lookupListId")
	if err := s.acl.Require(ctx, p, listRef(st.LookupListID), acl.View); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return notFound
		}
		return err
	}
	target, err := s.load(ctx, st.LookupListID)
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return notFound
		}
		return err
	}
	if st.LookupNodeID != "" && target.list.NodeID != st.LookupNodeID {
		return fault.Validation("settings.lookupNodeId", "the lookup list does not belong to lookupNodeId")
	}
	if st.LookupFieldID != "" {
		if f, ok := target.resolve(st.LookupFieldID); !ok || isMeta(f) {
			return fault.Validation("settings.lookupFieldId", "lookupFieldId is not a field of the lookup list")
		}
	}
	return nil
}

func (s *Service) fieldOf(sc *schema, fieldID string) (*field.Def, error) {
	if f, ok := sc.byID[strings.ToLower(fieldID)]; ok {
		return f, nil
	}
	return nil, fault.NotFound("field")
}

// UpdateField changes a field (edit on the list). System fields: title allows
// only isRequired; created_by and item_number cannot be edited. Tightening
// choice or person settings normalises stored values in the same transaction.
func (s *Service) UpdateField(ctx context.Context, p *auth.Principal, listID, fieldID string, in FieldInput) (FieldOut, error) {
	sc, err := s.open(ctx, p, listID, acl.Edit)
	if err != nil {
		return FieldOut{}, err
	}
	f, err := s.fieldOf(sc, fieldID)
	if err != nil {
		return FieldOut{}, err
	}
	old := *f
	if f.System {
		if !editable(f) {
			return FieldOut{}, fault.Validation("fieldId", "system field %q cannot be edited", f.InternalName)
		}
		if in.Title != nil && *in.Title != f.Title || in.FieldType != nil && *in.FieldType != f.Type ||
			!field.SameSettings(f.Settings, in.Settings) || in.SortOrder != nil && *in.SortOrder != f.SortOrder ||
			in.InternalName != nil && *in.InternalName != f.InternalName {
			return FieldOut{}, fault.Validation("fieldId", "only isRequired can be changed on system field %q", f.InternalName)
		}
	}
	if err := field.Patch(f, in, func(st field.FieldSettings) error { return s.checkLookupTarget(ctx, p, st) }); err != nil {
		return FieldOut{}, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.schemaChanged(ctx, listID)
		if err := s.st.updateField(ctx, f); err != nil {
			return err
		}
		if field.Tightened(&old, f) {
			return s.normaliseStored(ctx, sc, &old, f)
		}
		return nil
	})
	if err != nil {
		return FieldOut{}, err
	}
	return fieldsOut([]*field.Def{f})[0], nil
}

const normaliseBatch = 500

// normaliseStored rewrites every stored value of f that the new settings no
// longer allow, in batches inside the caller's transaction (any list size).
func (s *Service) normaliseStored(ctx context.Context, sc *schema, old, f *field.Def) error {
	wide := *old
	multi := true
	wide.Settings.AllowMultiple = &multi // read stored values in full
	readFields := make([]*field.Def, len(sc.fields))
	for i, x := range sc.fields {
		readFields[i] = x
		if x.ID == f.ID {
			readFields[i] = &wide
		}
	}
	newFields := make([]*field.Def, len(sc.fields))
	for i, x := range sc.fields {
		newFields[i] = x
		if x.ID == f.ID {
			newFields[i] = f
		}
	}
	s.itemsChanged(ctx, sc.list.ID)
	return s.eachItemWith(ctx, sc, readFields, f, func(it *Item) error {
		cur := it.Values[f.ID]
		next := field.Narrow(f, cur)
		kind := field.MustOf(f)
		if reflect.DeepEqual(kind.Cells(f, cur), kind.Cells(f, next)) {
			return nil
		}
		it.Values[f.ID] = next
		r := &row{Number: it.Number, UpdatedBy: it.UpdatedBy, UpdatedAt: it.UpdatedAt, Cells: field.MustOf(f).Cells(f, next)}
		if err := s.st.updateItem(ctx, sc.list, r); err != nil {
			return err
		}
		return s.indexItem(ctx, sc, newFields, it)
	})
}

// eachItemWith calls fn for every item that has a value in f, in batches of
// normaliseBatch read with fields (any size of list, constant memory).
func (s *Service) eachItemWith(ctx context.Context, sc *schema, fields []*field.Def, f *field.Def, fn func(*Item) error) error {
	var last int64
	for {
		items, err := s.st.itemsAfter(ctx, sc.list, fields, f.Column(), last, normaliseBatch)
		if err != nil {
			return err
		}
		for _, it := range items {
			last = it.Number
			if err := fn(it); err != nil {
				return err
			}
		}
		if len(items) < normaliseBatch {
			return nil
		}
	}
}

// dropFromSearch re-indexes the items that have a value in f without it,
// before f's columns go, so that q and search no longer find them by it.
func (s *Service) dropFromSearch(ctx context.Context, sc *schema, f *field.Def) error {
	if s.index == nil || !sc.list.SearchEnabled {
		return nil
	}
	rest := make([]*field.Def, 0, len(sc.fields))
	for _, x := range sc.fields {
		if x.ID != f.ID {
			rest = append(rest, x)
		}
	}
	s.itemsChanged(ctx, sc.list.ID)
	return s.eachItemWith(ctx, sc, sc.fields, f, func(it *Item) error {
		return s.indexItem(ctx, sc, rest, it)
	})
}

// DeleteField removes a custom field, its column and its view references (edit on the list).
func (s *Service) DeleteField(ctx context.Context, p *auth.Principal, listID, fieldID string) error {
	sc, err := s.open(ctx, p, listID, acl.Edit)
	if err != nil {
		return err
	}
	f, err := s.fieldOf(sc, fieldID)
	if err != nil {
		return err
	}
	if f.System {
		return fault.Validation("fieldId", "system field %q cannot be deleted", f.InternalName)
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.schemaChanged(ctx, listID)
		if err := s.st.deleteField(ctx, f.ID); err != nil {
			return err
		}
		if err := s.dropFieldFromViews(ctx, listID, f.ID); err != nil {
			return err
		}
		if err := s.dropFromSearch(ctx, sc, f); err != nil {
			return err
		}
		return s.st.dropColumns(ctx, sc.list, f)
	})
}
