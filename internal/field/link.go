package field

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"coreportal/internal/store"
)

// Link values {url, description?} are stored as JSON in f_n; f_n_ci holds
// the lower-cased URL, which filters and sorting use.
type linkKind struct{ noSettings }

// LinkValue is the value of a link field.
type LinkValue struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

func init() { register(Link, linkKind{}) }

func (linkKind) Columns(d store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), "TEXT"}, {f.CI(), ciType(d)}}
}

func (linkKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var v LinkValue
	var s string
	if json.Unmarshal(raw, &s) == nil {
		v.URL = s
	} else if err := json.Unmarshal(raw, &v); err != nil {
		return nil, invalid(f, "value must be an object { url, description }")
	}
	v.URL = strings.TrimSpace(v.URL)
	v.Description = strings.TrimSpace(v.Description)
	if v.URL == "" {
		return nil, nil
	}
	u, err := url.Parse(v.URL)
	if err != nil || len(v.URL) > 2048 || len(v.Description) > 1000 {
		return nil, invalid(f, "url is not valid")
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto", "":
	default:
		// javascript:, data: and the like would be stored XSS in every client
		return nil, invalid(f, "url scheme %q is not allowed (http, https, mailto or a relative link)", u.Scheme)
	}
	return v, nil
}

func asLink(v any) (LinkValue, bool) {
	switch x := v.(type) {
	case LinkValue:
		return x, true
	case map[string]any:
		u, _ := x["url"].(string)
		d, _ := x["description"].(string)
		return LinkValue{URL: u, Description: d}, u != ""
	}
	return LinkValue{}, false
}

func (linkKind) Cells(f *Def, v any) Cells {
	l, ok := asLink(v)
	if !ok {
		return Cells{f.Column(): nil, f.CI(): nil}
	}
	j, _ := json.Marshal(l)
	return Cells{f.Column(): string(j), f.CI(): Lower(l.URL)}
}

func (linkKind) Decode(_ *Def, raw any) any {
	s, _ := asString(raw).(string)
	if s == "" {
		return nil
	}
	var l LinkValue
	if json.Unmarshal([]byte(s), &l) != nil {
		return nil
	}
	return l
}

func (linkKind) Search(_ *Def, v any) string {
	l, _ := asLink(v)
	return l.URL + " " + l.Description
}

func (linkKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	return textFilter(f, f.CI(), op, o)
}

func (linkKind) SortExpr(f *Def) string { return f.CI() }

// LinkOf reads a link value (stored or decoded form).
func LinkOf(v any) (LinkValue, bool) { return asLink(v) }
