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
		s.Properties[name] = &cp
	}
	return s
}

func hasProperty(s *huma.Schema, name string) bool {
	for k := range s.Properties {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
