package libraries

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
)

// valueEnv answers the lookups that value validation needs.
type valueEnv struct {
	s    *Service
	p    *auth.Principal
	kept map[string]json.RawMessage // stored values of the file being written
}

func (e valueEnv) Subject(ctx context.Context, principalType, id string) (string, error) {
	if e.s.subjects == nil {
		return "", fault.NotFound(principalType)
	}
	return e.s.subjects.Subject(ctx, principalType, id)
}

func (e valueEnv) LookupItem(ctx context.Context, f *field.Def, id int64) (string, error) {
	if raw, ok := e.kept[f.ID]; ok {
		for _, v := range field.Lookups(valueOf(f, raw)) {
			if v.ItemID == id {
				return v.Display, nil // already held: sent back unchanged
			}
		}
	}
	return e.s.Display(ctx, e.p, f.Settings.LookupLibraryID, f.Settings.LookupFieldID, id)
}

// applyValues validates written values (keys: field UUID or internal_name),
// merges them into f.Values and, when checkRequired, checks every required
// field of the merged set. Values of deleted fields are dropped.
func (s *Service) applyValues(ctx context.Context, p *auth.Principal, l *lib, f *File, in map[string]json.RawMessage, checkRequired bool) error {
	merged := map[string]json.RawMessage{}
	for _, fd := range l.fields {
		if v, ok := f.Values[fd.ID]; ok {
			merged[fd.ID] = v
		}
	}
	env := valueEnv{s: s, p: p, kept: f.Values}
	given := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(in)) {
		fd, ok := l.resolve(key)
		if !ok {
			return fault.Validation(key, "unknown field %s", key)
		}
		if first, dup := given[fd.ID]; dup {
			return fault.Validation(fd.ID, "field %s is given twice (as %q and %q)", fd.InternalName, first, key)
		}
		given[fd.ID] = key
		v, err := field.MustOf(fd).Normalize(ctx, fd, in[key], env)
		if err != nil {
			return fault.Validation(fd.ID, "%s", err.Error())
		}
		if v == nil {
			delete(merged, fd.ID)
			continue
		}
		j, err := storedValue(fd, v)
		if err != nil {
			return err
		}
		merged[fd.ID] = j
	}
	if checkRequired {
		for _, fd := range l.fields {
			if _, ok := merged[fd.ID]; fd.Required && !ok {
				return fault.Validation(fd.ID, "%s is required", fd.Title)
			}
		}
	}
	f.Values = merged
	return nil
}
