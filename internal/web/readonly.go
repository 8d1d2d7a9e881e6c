package web

import (
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// ReadOnlyFrom, embedded in the body of a PUT or PATCH, lets a client send
// back what the GET of the same resource returned: every property of R (the
// GET's data) that the body does not declare itself is added to the body's
// schema as readOnly. Such a property is validated against R's schema,
// accepted and ignored: the body's Go type has no field for it, so decoding
// drops it and no handler can ever read it. Properties that are neither in
// the body nor in R stay refused (400 VALIDATION_ERROR, unexpected property).
//
//	type putBody struct {
//		web.ReadOnlyFrom[SettingsOut]
//		MinLevel *string `json:"minLevel,omitempty"`
//	}
type ReadOnlyFrom[R any] struct{}

// readOnlyNote ends the description of every property added by ReadOnlyFrom.
const readOnlyNote = "Read-only: returned by the GET of this resource; accepted in a write and ignored."

// TransformSchema (huma.SchemaTransformer) is promoted to the embedding body.
func (ReadOnlyFrom[R]) TransformSchema(r huma.Registry, s *huma.Schema) *huma.Schema {
	return WithReadOnly(r, s, reflect.TypeFor[R]())
}

// WithReadOnly adds to the object schema s every property of the schema of t
// that s lacks (compared as encoding/json compares names: without regard to
// case), marked readOnly and never required.
func WithReadOnly(r huma.Registry, s *huma.Schema, t reflect.Type) *huma.Schema {
	if s == nil || s.Type != huma.TypeObject {
		return s
	}
	src := r.Schema(t, false, "")
	for src != nil && src.Ref != "" {
		src = r.SchemaFromRef(src.Ref)
	}
	if src == nil || len(src.Properties) == 0 {
		return s
	}
	if s.Properties == nil {
		s.Properties = map[string]*huma.Schema{}
	}
	for name, p := range src.Properties {
		if hasProperty(s, name) || p == nil {
			continue
		}
		cp := *p
		cp.ReadOnly = true
		if cp.Description == "" {
			cp.Description = readOnlyNote
		} else {
			cp.Description = strings.TrimRight(cp.Description, ". ") + ". " + readOnlyNote
		}
		if twin := goNameTwin(s, name); twin {
			// A client generator names both internal_name and internalName
			// InternalName; the echo gets a name of its own.
			ext := map[string]any{}
			for k, v := range cp.Extensions {
				ext[k] = v
			}
			ext["x-go-name"] = pascal(name) + "ReadOnly"
			cp.Extensions = ext
		}
		s.Properties[name] = &cp
	}
	return s
}

// goNameTwin reports whether s has a property that differs from name only
// in case and underscores (display_name beside displayName).
func goNameTwin(s *huma.Schema, name string) bool {
	fold := func(n string) string { return strings.ToLower(strings.ReplaceAll(n, "_", "")) }
	for k := range s.Properties {
		if fold(k) == fold(name) {
			return true
		}
	}
	return false
}

// pascal turns a JSON property name into an exported Go-style name.
func pascal(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func hasProperty(s *huma.Schema, name string) bool {
	for k := range s.Properties {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
