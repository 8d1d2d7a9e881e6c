package web

import (
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// markNullable documents as nullable the answer fields that encoding/json
// writes as null: pointers and maps without omitempty (a nil map is null),
// except the data of a success envelope when it is a pointer: a success
// carries its resource (MaybeEnvelope documents the data that may be null).
// Only schemas that no request uses are changed: Huma validates requests
// with the same schemas, and a request field stays as strict as it is.
func markNullable(oapi *huma.OpenAPI) {
	reg := oapi.Components.Schemas
	inputs := map[string]bool{}
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			if op.RequestBody != nil {
				for _, mt := range op.RequestBody.Content {
					collectRefs(reg, mt.Schema, inputs)
				}
			}
			for _, p := range op.Parameters {
				collectRefs(reg, p.Schema, inputs)
			}
		}
	}
	prefix := "#/components/schemas/"
	for name, s := range reg.Map() {
		if inputs[name] || s == nil || s.Properties == nil {
			continue
		}
		t := reg.TypeFromRef(prefix + name)
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			continue
		}
		for _, prop := range nullFields(t) {
			if prop == "data" && successEnvelope(t) {
				continue
			}
			if ps := s.Properties[prop]; ps != nil {
				s.Properties[prop] = nullable(ps)
			}
		}
	}
}

// successEnvelope reports whether t is an Envelope or PagedEnvelope whose
// data is a pointer.
func successEnvelope(t reflect.Type) bool {
	if t.PkgPath() != reflect.TypeFor[APIIndex]().PkgPath() {
		return false
	}
	name := t.Name()
	if !strings.HasPrefix(name, "Envelope[") && !strings.HasPrefix(name, "PagedEnvelope[") {
		return false
	}
	f, ok := t.FieldByName("Data")
	return ok && f.Type.Kind() == reflect.Pointer
}

// nullFields lists the JSON names of fields of t (embedded ones included)
// that encoding/json may write as null.
func nullFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, nullFields(et)...)
			}
			continue
		}
		if !f.IsExported() || name == "-" || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if k := f.Type.Kind(); k == reflect.Pointer || k == reflect.Map {
			out = append(out, name)
		}
	}
	return out
}

// nullable returns s allowing null as well.
func nullable(s *huma.Schema) *huma.Schema {
	switch {
	case s.Type == "null":
	case s.Ref != "":
		return &huma.Schema{Description: s.Description, AnyOf: []*huma.Schema{{Ref: s.Ref}, {Type: "null"}}}
	case s.Type != "":
		s.Nullable = true
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, nil) {
			s.Enum = append(s.Enum, nil)
		}
	case len(s.AnyOf) > 0:
		if !slices.ContainsFunc(s.AnyOf, func(a *huma.Schema) bool { return a.Type == "null" }) {
			s.AnyOf = append(s.AnyOf, &huma.Schema{Type: "null"})
		}
	}
	return s
}

// collectRefs adds the names of the component schemas s refers to,
// directly or through other schemas, to seen.
func collectRefs(reg huma.Registry, s *huma.Schema, seen map[string]bool) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		name := s.Ref[strings.LastIndex(s.Ref, "/")+1:]
		if seen[name] {
			return
		}
		seen[name] = true
		collectRefs(reg, reg.Map()[name], seen)
		return
	}
	collectRefs(reg, s.Items, seen)
	if as, ok := s.AdditionalProperties.(*huma.Schema); ok {
		collectRefs(reg, as, seen)
	}
	for _, p := range s.Properties {
		collectRefs(reg, p, seen)
	}
	for _, list := range [][]*huma.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			collectRefs(reg, c, seen)
		}
	}
}
