package modules

import (
	"encoding/json"
	"fmt"
	"strings"
)

// lookupTargets maps the lookup settings of a list field that may be given
// as {"$ref": ...} to what the reference must name.
var lookupTargets = map[string]string{
	"lookupListId":    TypeList,
	"lookupLibraryId": TypeLibrary,
	"lookupNodeId":    TypeNode,
	"lookupFieldId":   "field", // <list key>.fields.<internalName>
}

// lookupRef is a $ref inside the settings of a list field.
type lookupRef struct {
	field   int    // index in Fields
	setting string // e.g. lookupListId
	ref     string
	path    string // place in module.json
}

// parseLookups finds the $ref values of a list's field settings.
func (r *Resource) parseLookups(path string) error {
	for j, f := range r.Fields {
		if len(f.Settings) == 0 || string(f.Settings) == "null" {
			continue
		}
		var settings map[string]json.RawMessage
		sp := fmt.Sprintf("%s.fields[%d].settings", path, j)
		if err := json.Unmarshal(f.Settings, &settings); err != nil {
			return invalid(sp, "settings must be an object")
		}
		for k, v := range settings {
			var ref Ref
			if lookupTargets[k] == "" || json.Unmarshal(v, &ref) != nil || ref.Ref == "" {
				continue // a plain value: the lists service checks it
			}
			r.lookups = append(r.lookups, lookupRef{field: j, setting: k, ref: ref.Ref, path: sp + "." + k + ".$ref"})
		}
	}
	return nil
}

// checkLookup validates one lookup reference: a required module's resource,
// or a resource (a field for lookupFieldId) of this module of the right type.
func (m *Manifest) checkLookup(l lookupRef, index map[string]int) error {
	if dep, rest, ok := m.splitModuleRef(l.ref); ok {
		if rest == "" {
			return invalid(l.path, "%q names module %s but no resource of it", l.ref, dep)
		}
		return nil
	}
	if strings.HasPrefix(l.ref, "modules.") {
		return invalid(l.path, "%q names a module that is not in requires", l.ref)
	}
	want := lookupTargets[l.setting]
	if want == "field" {
		list, name, ok := strings.Cut(l.ref, ".fields.")
		j, found := index[list]
		if !ok || !found || m.Resources[j].Type != TypeList || !m.Resources[j].declares(name) {
			return invalid(l.path, "%q is not a field of a list of this module (<list key>.fields.<internalName>)", l.ref)
		}
		return nil
	}
	j, ok := index[l.ref]
	if !ok || m.Resources[j].Type != want {
		return invalid(l.path, "%q is not a %s of this module", l.ref, want)
	}
	return nil
}

func (r *Resource) declares(field string) bool {
	for _, f := range r.Fields {
		if f.InternalName == field {
			return true
		}
	}
	return false
}

// lookupTarget is the resource key a local lookup reference depends on.
func (l lookupRef) target() string {
	if list, _, ok := strings.Cut(l.ref, ".fields."); ok {
		return list
	}
	return l.ref
}

// withLookups returns a field's settings with its $ref values replaced by
// the uuids they name.
func (c *creation) withLookups(r *Resource, j int) (json.RawMessage, error) {
	f := r.Fields[j]
	var settings map[string]json.RawMessage
	for _, l := range r.lookups {
		if l.field != j {
			continue
		}
		if settings == nil {
			if err := json.Unmarshal(f.Settings, &settings); err != nil {
				return nil, invalid(l.path, "settings must be an object")
			}
		}
		id, err := c.resolve(&Ref{Ref: l.ref}, l.path)
		if err != nil {
			return nil, err
		}
		settings[l.setting], _ = json.Marshal(id)
	}
	if settings == nil {
		return f.Settings, nil
	}
	return json.Marshal(settings)
}
