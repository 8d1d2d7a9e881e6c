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
	Page        int          `json:"page" doc:"the page answered, from 1"`
	Limit       int          `json:"limit" doc:"the page size used"`
	Total       int          `json:"total" doc:"items matching the view's filter, filter and q that the caller may view"`
	TotalPages  int          `json:"totalPages"`
	TotalInView int          `json:"totalInView" doc:"items in the view before filter and q (for a view without filter: the list's kept item count less the items hidden from the caller; otherwise counted and kept up to 5 s per caller, dropped at once by item writes on this instance)"`
	Fields      *[]FieldOut  `json:"fields,omitempty" doc:"the list's fields; left out with schemaUnchanged"`
	Groups      *[]ItemGroup `json:"groups,omitempty" doc:"grouped views only: value and count per group ([] when nothing matches)"`
	View        *ListView    `json:"view,omitempty" doc:"the view applied; left out with schemaUnchanged"`
	SchemaTag   string       `json:"schemaTag" doc:"digest of fields and view: send it back as the schemaTag parameter"`
	// SchemaUnchanged: fields and view are left out (the caller's schemaTag is current).
	SchemaUnchanged bool `json:"schemaUnchanged,omitempty" doc:"true when the schemaTag parameter named the current fields and view, which are then left out"`
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
