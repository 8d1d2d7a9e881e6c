package field

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/fault"
)

// Input is the body of field create and update shared by lists and
// libraries; nil keys stay unchanged on update.
type Input struct {
	InternalName *string
	Title        *string
	FieldType    *string
	IsRequired   *bool
	SortOrder    *int
	Settings     json.RawMessage
}

// CheckLookup validates the target of a lookup field's settings; each owner
// (list, library) has its own rules for what a lookup may point to.
type CheckLookup func(FieldSettings) error

// New validates a create body and returns the new field of the list or
// library ownerID: title, type, settings (lookup targets through
// checkLookup), isRequired, sortOrder (defaultSort when absent) and an
// explicit internalName, in that order. An absent internalName is left
// empty for the caller to allocate.
func New(ownerID string, in Input, defaultSort int, checkLookup CheckLookup) (*Def, error) {
	var title, typ string
	if in.Title != nil {
		title = *in.Title
	}
	title, err := fault.RequiredText("title", title, 200)
	if err != nil {
		return nil, err
	}
	if in.FieldType != nil {
		typ = *in.FieldType
	}
	kind, ok := Of(typ)
	if !ok {
		return nil, fault.Validation("fieldType", "fieldType must be one of %s", strings.Join(Types(), ", "))
	}
	st, _, err := DecodeSettings(in.Settings)
	if err != nil {
		return nil, err
	}
	if st, err = kind.CheckSettings(st, true); err != nil {
		return nil, fault.Validation("settings", "%s", err.Error())
	}
	if typ == Lookup {
		if err := checkLookup(st); err != nil {
			return nil, err
		}
	}
	f := &Def{ID: uuid.NewString(), ListID: ownerID, Title: title, Type: typ, Settings: st, SortOrder: defaultSort}
	if in.IsRequired != nil {
		f.Required = *in.IsRequired
	}
	if in.SortOrder != nil {
		if err := CheckSortOrder(*in.SortOrder); err != nil {
			return nil, err
		}
		f.SortOrder = *in.SortOrder
	}
	if in.InternalName != nil && *in.InternalName != "" {
		f.InternalName = *in.InternalName
		if err := CheckInternalName(f.InternalName); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Patch applies an update body to f in place: type and internalName cannot
// change; title, isRequired and sortOrder are replaced when given; given
// settings are merged into the current ones and checked (lookup targets
// through checkLookup). On error f may be partly changed: callers patch a
// copy or discard f.
func Patch(f *Def, in Input, checkLookup CheckLookup) error {
	if in.FieldType != nil && *in.FieldType != f.Type {
		return fault.Validation("fieldType", "the type of a field cannot be changed; add a new field instead")
	}
	if in.InternalName != nil && *in.InternalName != f.InternalName {
		return fault.Validation("internalName", "internalName cannot be changed")
	}
	var err error
	if in.Title != nil {
		if f.Title, err = fault.RequiredText("title", *in.Title, 200); err != nil {
			return err
		}
	}
	if in.IsRequired != nil {
		f.Required = *in.IsRequired
	}
	if in.SortOrder != nil {
		if err := CheckSortOrder(*in.SortOrder); err != nil {
			return err
		}
		f.SortOrder = *in.SortOrder
	}
	st, given, err := DecodeSettings(in.Settings)
	if err != nil {
		return err
	}
	if !given {
		return nil
	}
	merged := MergeSettings(f.Settings, st, in.Settings)
	if f.Type == Lookup && (!strings.EqualFold(merged.LookupListID, f.Settings.LookupListID) ||
		!strings.EqualFold(merged.LookupLibraryID, f.Settings.LookupLibraryID)) {
		// stored values are item (or file) numbers of the target: on another
		// target they would name other items, never chosen by anybody
		return fault.Validation("settings", "the target list or library of a lookup cannot be changed; add a new field instead")
	}
	if f.Settings, err = MustOf(f).CheckSettings(merged, false); err != nil {
		return fault.Validation("settings", "%s", err.Error())
	}
	if f.Type == Lookup {
		return checkLookup(f.Settings)
	}
	return nil
}
