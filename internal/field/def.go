package field

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Rules of field definitions shared by every owner of custom fields (list
// fields, library fields): settings decoding and merging, sort order and
// internal name checks, and the tightening normalisation of SPEC.md rule 2.

// InternalNameRE is the form of a field's internal name.
var InternalNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

// GeneratedNameRE is the form of the internal names the server gives fields
// created without one (field_<column>); callers cannot choose it, so a
// generated name never meets a taken one.
var GeneratedNameRE = regexp.MustCompile(`^field_[0-9]+$`)

// CheckInternalName validates an internal name chosen by a caller.
func CheckInternalName(name string) error {
	if !InternalNameRE.MatchString(name) || strings.HasPrefix(name, "__") {
		return fault.Validation("internalName", "internalName must be lowercase letters, digits and _ (starting with a letter)")
	}
	if GeneratedNameRE.MatchString(name) {
		return fault.Validation("internalName", "internalName of the form field_<number> is reserved for generated names")
	}
	return nil
}

// MaxSortOrder bounds sortOrder (either sign) so that it fits the INTEGER column of both databases.
const MaxSortOrder = 1_000_000

// CheckSortOrder validates a field's sortOrder.
func CheckSortOrder(n int) error {
	if n < -MaxSortOrder || n > MaxSortOrder {
		return fault.Validation("sortOrder", "sortOrder must be between %d and %d", -MaxSortOrder, MaxSortOrder)
	}
	return nil
}

// DecodeSettings reads a settings object strictly; given is false when raw
// is absent or null.
func DecodeSettings(raw json.RawMessage) (st FieldSettings, given bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return st, false, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return st, true, fault.Validation("settings", "settings are not valid: %s", web.DescribeJSON(raw, err).Error())
	}
	return st, true, nil
}

// SameSettings reports whether raw (absent, null or an object) states exactly
// the settings cur already has, so a client may send a field back unchanged.
func SameSettings(cur FieldSettings, raw json.RawMessage) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var given, stored any
	curJSON, _ := json.Marshal(cur)
	if json.Unmarshal(raw, &given) != nil || json.Unmarshal(curJSON, &stored) != nil {
		return false
	}
	return reflect.DeepEqual(given, stored)
}

// MergeSettings applies the keys present in the request over the stored settings.
func MergeSettings(cur, in FieldSettings, raw json.RawMessage) FieldSettings {
	var given map[string]json.RawMessage
	_ = json.Unmarshal(raw, &given)
	out := cur
	// the decoder of in matched keys as strings.EqualFold does: so does this
	set := func(k string, apply func()) {
		for g := range given {
			if strings.EqualFold(g, k) {
				apply()
				return
			}
		}
	}
	set("choices", func() { out.Choices = in.Choices })
	set("allowMultiple", func() { out.AllowMultiple = in.AllowMultiple })
	set("allowUsers", func() { out.AllowUsers = in.AllowUsers })
	set("allowGroups", func() { out.AllowGroups = in.AllowGroups })
	set("lookupListId", func() { out.LookupListID = in.LookupListID })
	set("lookupLibraryId", func() { out.LookupLibraryID = in.LookupLibraryID })
	set("lookupNodeId", func() { out.LookupNodeID = in.LookupNodeID })
	set("lookupFieldId", func() { out.LookupFieldID = in.LookupFieldID })
	if out.LookupListID != "" && in.LookupLibraryID != "" {
		out.LookupListID = ""
	}
	if out.LookupLibraryID != "" && in.LookupListID != "" {
		out.LookupLibraryID = ""
	}
	return out
}

// Tightened reports whether new settings of a choice, person or lookup field allow
// less than the old ones, so stored values must be normalised.
func Tightened(old, f *Def) bool {
	switch f.Type {
	case Choice:
		for _, c := range old.Settings.Choices {
			if !slices.Contains(f.Settings.Choices, c) {
				return true
			}
		}
		return old.Settings.Multiple(false) && !f.Settings.Multiple(false)
	case Person:
		return old.Settings.Multiple(true) && !f.Settings.Multiple(true) ||
			PersonAllows(old.Settings, "user") && !PersonAllows(f.Settings, "user") ||
			PersonAllows(old.Settings, "group") && !PersonAllows(f.Settings, "group")
	case Lookup:
		return old.Settings.Multiple(false) && !f.Settings.Multiple(false)
	}
	return false
}

// Narrow applies SPEC.md rule 2 to one stored value: entries outside the
// allowed options are removed; with allowMultiple=false the first remaining one is kept.
func Narrow(f *Def, v any) any {
	switch f.Type {
	case Choice:
		var keep []string
		for _, c := range ChoiceList(v) {
			if slices.Contains(f.Settings.Choices, c) {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		if !f.Settings.Multiple(false) {
			return keep[0]
		}
		return keep
	case Person:
		var keep []Subject
		for _, sub := range Subjects(v) {
			if PersonAllows(f.Settings, sub.PrincipalType) {
				keep = append(keep, sub)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		if !f.Settings.Multiple(true) {
			return keep[0]
		}
		return keep
	case Lookup:
		keep := Lookups(v)
		if len(keep) == 0 {
			return nil
		}
		if !f.Settings.Multiple(false) {
			return keep[0]
		}
		return keep
	}
	return v
}

// DisplayText renders any field value as plain text.
func DisplayText(f *Def, v any) string {
	if v == nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return strings.TrimSpace(MustOf(f).Search(f, v))
}
