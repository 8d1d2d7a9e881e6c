package field

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"

	"coreportal/internal/store"
)

// MaxText bounds text values (characters).
const MaxText = 100_000

// ciType is the type of columns compared as text: on PostgreSQL with the
// binary "C" collation, so that order and prefix ranges are by code point as
// on SQLite (cp_lower folds with the database's character type and keeps its
// argument's collation).
func ciType(d store.Dialect) string {
	if d == store.Postgres {
		return `TEXT COLLATE "C"`
	}
	return "TEXT"
}

// noSettings is embedded by types without settings.
type noSettings struct{}

func (noSettings) CheckSettings(FieldSettings, bool) (FieldSettings, error) {
	return FieldSettings{}, nil
}

// textKind covers text, multiline_text and html_text.
type textKind struct {
	noSettings
	html bool
}

var (
	ugc   = portalPolicy()
	strip = bluemonday.StrictPolicy()
)

// SanitizeHTML applies the one HTML policy of the portal (html_text field
// values, page content): bluemonday's user-generated-content policy, which
// drops scripts, on* attributes, style and javascript: URLs and keeps
// formatting, tables, links and images, less the id and name attributes
// (portalPolicy).
func SanitizeHTML(s string) string { return ugc.Sanitize(s) }

// PlainText strips every tag (search text of HTML content).
func PlainText(s string) string { return strip.Sanitize(s) }

func init() {
	register(Text, textKind{})
	register(MultilineText, textKind{})
	register(HTMLText, textKind{html: true})
}

// Columns: html_text keeps the lower-cased plain text of its HTML in f_n_ci
// (what filters compare must not include tags); text and multi-line text
// values are compared through Fold.
func (k textKind) Columns(d store.Dialect, f *Def) [][2]string {
	if k.html {
		return [][2]string{{f.Column(), "TEXT"}, {f.CI(), ciType(d)}}
	}
	return [][2]string{{f.Column(), ciType(d)}}
}

func (k textKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, invalid(f, "value must be a string")
	}
	if utf8.RuneCountInString(s) > MaxText {
		return nil, invalid(f, "value must have at most %d characters", MaxText)
	}
	if k.html {
		s = SanitizeHTML(s)
	}
	if f.Type == Text {
		s = strings.TrimSpace(s)
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	return s, nil
}

func (k textKind) Cells(f *Def, v any) Cells {
	if !k.html {
		return Cells{f.Column(): v}
	}
	if v == nil {
		return Cells{f.Column(): nil, f.CI(): nil}
	}
	return Cells{f.Column(): v, f.CI(): Lower(k.Search(f, v))}
}

func (textKind) Decode(_ *Def, raw any) any { return asString(raw) }

func (k textKind) Search(_ *Def, v any) string {
	s, _ := v.(string)
	if k.html {
		s = PlainText(s)
	}
	return s
}

func (k textKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	return textFilter(f, k.SortExpr(f), op, o)
}

func (k textKind) SortExpr(f *Def) string {
	if k.html {
		return f.CI()
	}
	return Fold(f.Column())
}

func asString(raw any) any {
	switch x := raw.(type) {
	case nil:
		return nil
	case string:
		return x
	case []byte:
		return string(x)
	}
	return nil
}
