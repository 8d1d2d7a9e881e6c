package users

import (
	"bytes"
	"encoding/json"

	"github.com/danielgtaylor/huma/v2"
)

// CardField is one entry of a profile's card_fields.
type CardField struct{ Key, Value string }

// CardFields is a JSON object whose keys keep the order of
// personCardVisibleFields (a Go map would sort them).
type CardFields []CardField

// MarshalJSON writes the fields as one object in their order.
func (f CardFields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Schema documents card_fields as an object of strings.
func (CardFields) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: &huma.Schema{Type: huma.TypeString},
		Description: "directory fields chosen by personCardVisibleFields, in that order (display name, manager and photo excluded), only those with a value"}
}
