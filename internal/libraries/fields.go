package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// Custom fields of a library use the list field types, settings, value rules
// and tightening normalisation of internal/field. Their values live in the
// file row's field_values JSON; deleting a field leaves its values unseen
// (responses carry only current fields) until the file's next write drops them.

// FieldInput is the body of field create and update; nil keys stay unchanged on update.
type FieldInput = field.Input

const maxFields = 200

// Fields returns the custom fields of a library (view).
func (s *Service) Fields(ctx context.Context, p *auth.Principal, libraryID string) ([]LibraryFieldOut, error) {
	l, err := s.open(ctx, p, libraryID, acl.View)
	if err != nil {
		return nil, err
	}
	return fieldsOut(l.fields), nil
}

// openForSchema checks the rights of field changes: administrator and edit on the library.
func (s *Service) openForSchema(ctx context.Context, p *auth.Principal, libraryID string) (*lib, error) {
	l, err := s.open(ctx, p, libraryID, acl.Edit)
	if err != nil {
		return nil, err
	}
	if !p.IsAdmin {
		return nil, fault.Forbidden("only administrators change the fields of a library")
	}
	return l, nil
}

// CreateField adds a custom field (administrator and edit on the library).
func (s *Service) CreateField(ctx context.Context, p *auth.Principal, libraryID string, in FieldInput) (LibraryFieldOut, error) {
	l, err := s.openForSchema(ctx, p, libraryID)
	if err != nil {
		return LibraryFieldOut{}, err
	}
	if len(l.fields) >= maxFields {
		return LibraryFieldOut{}, fault.Validation("fieldType", "a library can have at most %d fields", maxFields)
	}
	f, err := field.New(l.ID, in, len(l.fields)*10, func(st field.FieldSettings) error { return s.checkOwnLookup(ctx, p, st) })
	if err != nil {
		return LibraryFieldOut{}, err
	}
	if f.InternalName == "" {
		for i := len(l.fields) + 1; ; i++ {
			if f.InternalName = fmt.Sprintf("field_%d", i); l.byName[f.InternalName] == nil {
				break
			}
		}
	}
	if err := s.st.insertField(ctx, f, s.now().UTC()); err != nil {
		if store.IsUnique(err) {
			return LibraryFieldOut{}, fault.Conflict("the library already has a field %q", f.InternalName).With("field", "internalName")
		}
		return LibraryFieldOut{}, err
	}
	return fieldsOut([]*field.Def{f})[0], nil
}

// checkOwnLookup validates the target of a lookup field of a library: another
// (or the same) library the caller can view, and its display column.
func (s *Service) checkOwnLookup(ctx context.Context, p *auth.Principal, st field.FieldSettings) error {
	if st.LookupListID != "" {
		return fault.Validation("settings.lookupListId", "lookup fields of a library can point to document libraries only (lookupLibraryId)")
	}
	return s.CheckTarget(ctx, p, st.LookupLibraryID, st.LookupNodeID, st.LookupFieldID)
}

func (s *Service) fieldOf(l *lib, fieldID string) (*field.Def, error) {
	if _, ok := store.CanonicalUUID(strings.TrimSpace(fieldID)); !ok {
		return nil, fault.Validation("fieldId", "fieldId must be a UUID")
	}
	if f, ok := l.byID[strings.ToLower(strings.TrimSpace(fieldID))]; ok {
		return f, nil
	}
	return nil, fault.NotFound("field")
}

// UpdateField changes a custom field (administrator and edit on the library);
// tightening choice or person settings normalises stored values in the same transaction.
func (s *Service) UpdateField(ctx context.Context, p *auth.Principal, libraryID, fieldID string, in FieldInput) (LibraryFieldOut, error) {
	l, err := s.openForSchema(ctx, p, libraryID)
	if err != nil {
		return LibraryFieldOut{}, err
	}
	f, err := s.fieldOf(l, fieldID)
	if err != nil {
		return LibraryFieldOut{}, err
	}
	old := *f
	if err := field.Patch(f, in, func(st field.FieldSettings) error { return s.checkOwnLookup(ctx, p, st) }); err != nil {
		return LibraryFieldOut{}, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.updateField(ctx, f); err != nil {
			return err
		}
		if field.Tightened(&old, f) {
			return s.normaliseStored(ctx, l, f)
		}
		return nil
	})
	if err != nil {
		return LibraryFieldOut{}, err
	}
	return fieldsOut([]*field.Def{f})[0], nil
}

// normaliseStored rewrites every stored value of f that the new settings no
// longer allow (SPEC.md List field rule 2), in the caller's transaction.
func (s *Service) normaliseStored(ctx context.Context, l *lib, f *field.Def) error {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT guid, field_values FROM library_files WHERE library_id = ? AND field_values LIKE ?",
		l.ID, "%\""+f.ID+"\"%")
	if err != nil {
		return fmt.Errorf("normalise values: %w", err)
	}
	type change struct{ guid, values string }
	var changes []change
	for rows.Next() {
		var guid, raw string
		if err := rows.Scan(&guid, &raw); err != nil {
			rows.Close()
			return err
		}
		var vals map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &vals) != nil {
			continue
		}
		cur := valueOf(f, vals[f.ID])
		if cur == nil {
			continue
		}
		next := field.Narrow(f, cur)
		nj, err := storedValue(f, next)
		if err != nil {
			rows.Close()
			return err
		}
		// compare the stored text: cur was read with the new settings (a
		// single person or lookup value already shows only its first entry)
		if string(nj) == string(vals[f.ID]) || reflect.DeepEqual(valueOf(f, nj), cur) && !isRef(f) {
			continue
		}
		if next == nil {
			delete(vals, f.ID)
		} else {
			vals[f.ID] = nj
		}
		changes = append(changes, change{guid, encodeValues(vals)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range changes {
		if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_files SET field_values = ? WHERE guid = ?", c.values, c.guid); err != nil {
			return fmt.Errorf("normalise values: %w", err)
		}
	}
	return nil
}

// DeleteField removes a custom field (administrator and edit on the library).
func (s *Service) DeleteField(ctx context.Context, p *auth.Principal, libraryID, fieldID string) error {
	l, err := s.openForSchema(ctx, p, libraryID)
	if err != nil {
		return err
	}
	f, err := s.fieldOf(l, fieldID)
	if err != nil {
		return err
	}
	return s.st.deleteField(ctx, f.ID)
}
