package lists

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
)

// SentListMeta is the meta block of an item listing as the API sends it: the
// schema half (fields and view) is left out when the caller already holds
// it, that is when its schemaTag parameter names the current schema.
type SentListMeta struct {
	Page            int          `json:"page"`
	Limit           int          `json:"limit"`
	Total           int          `json:"total"`
	TotalPages      int          `json:"totalPages"`
	TotalInView     int          `json:"totalInView"`
	Fields          *[]FieldOut  `json:"fields,omitempty"`
	Groups          *[]ItemGroup `json:"groups,omitempty"`
	View            *ListView    `json:"view,omitempty"`
	SchemaTag       string       `json:"schemaTag"`
	SchemaUnchanged bool         `json:"schemaUnchanged,omitempty"`
}

// schemaTag is a digest of what meta.fields and meta.view say: any change
// of a field (title, settings, order, ...) or of the view changes it.
func schemaTag(m ListMeta) string {
	b, err := json.Marshal(struct {
		Fields []FieldOut `json:"f"`
		View   ListView   `json:"v"`
	}{m.Fields, m.View})
	if err != nil { // plain structs of strings, numbers and maps: cannot fail
		return ""
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// SentMeta builds the meta block of a listing as the API sends it, for a caller that sent
// known (its schemaTag parameter, empty when it has none).
func SentMeta(m ListMeta, known string) SentListMeta {
	out := SentListMeta{Page: m.Page, Limit: m.Limit, Total: m.Total, TotalPages: m.TotalPages, TotalInView: m.TotalInView,
		Groups: m.Groups, SchemaTag: schemaTag(m)}
	if known != "" && known == out.SchemaTag {
		out.SchemaUnchanged = true
		return out
	}
	out.Fields, out.View = &m.Fields, &m.View
	return out
}
