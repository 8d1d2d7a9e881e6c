package field

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"coreportal/internal/store"
)

// Choice values are stored as a JSON array of strings in f_n (whatever
// allowMultiple says, so that changing it needs no DDL). Sorting uses the
// folded array (Fold), filters the folded array with its JSON punctuation
// replaced by the separator (ChoiceFrame): "\x1fa\x1fb\x1f", in which
// whole entries and prefixes of entries are a LIKE (needles are JSON-encoded
// as the stored entries are).
type choiceKind struct{}

func init() { register(Choice, choiceKind{}) }

func (choiceKind) Columns(d store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), ciType(d)}}
}

// ChoiceFrame is the framed, lower-cased SQL form of a choice column. Inside
// a JSON string every quote is escaped, so '["', '","' and '"]' occur only
// between entries.
func ChoiceFrame(col string) string {
	return "replace(replace(replace(" + Fold(col) + ", '[\"', '" + Sep + "'), '\",\"', '" + Sep + "'), '\"]', '" + Sep + "')"
}

// jsonText is s as it appears inside a stored JSON string.
func jsonText(s string) string {
	j, _ := json.Marshal(s)
	return string(j[1 : len(j)-1])
}

func (choiceKind) CheckSettings(s FieldSettings, _ bool) (FieldSettings, error) {
	out := FieldSettings{AllowMultiple: boolPtr(s.Multiple(false))}
	seen := map[string]bool{}
	for _, c := range s.Choices {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] {
			continue
		}
		if utf8.RuneCountInString(c) > 255 || strings.Contains(c, Sep) {
			return FieldSettings{}, fmt.Errorf("choice %q is longer than 255 characters or contains control characters", c)
		}
		seen[c] = true
		out.Choices = append(out.Choices, c)
	}
	if len(out.Choices) == 0 {
		return FieldSettings{}, fmt.Errorf("settings.choices must list at least one choice")
	}
	if len(out.Choices) > 1000 {
		return FieldSettings{}, fmt.Errorf("settings.choices may list at most 1000 choices")
	}
	return out, nil
}

func boolPtr(b bool) *bool { return &b }

func (choiceKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var list []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		return nil, invalid(f, "value must be a string or an array of strings")
	}
	var out []string
	for _, v := range list {
		v = strings.TrimSpace(v) // choices are stored trimmed
		if v == "" {
			continue
		}
		if !slices.Contains(f.Settings.Choices, v) {
			return nil, invalid(f, "%q is not one of the choices", v)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	if !f.Settings.Multiple(false) {
		if len(out) > 1 {
			return nil, invalid(f, "only one choice is allowed")
		}
		return out[0], nil
	}
	return out, nil
}

// ChoiceList returns the stored values of a choice value.
func ChoiceList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (choiceKind) Cells(f *Def, v any) Cells {
	list := ChoiceList(v)
	if len(list) == 0 {
		return Cells{f.Column(): nil}
	}
	j, _ := json.Marshal(list)
	return Cells{f.Column(): string(j)}
}

func (choiceKind) Decode(f *Def, raw any) any {
	s, _ := asString(raw).(string)
	if s == "" {
		return nil
	}
	var list []string
	if json.Unmarshal([]byte(s), &list) != nil || len(list) == 0 {
		return nil
	}
	if !f.Settings.Multiple(false) {
		return list[0]
	}
	return list
}

func (choiceKind) Search(_ *Def, v any) string { return strings.Join(ChoiceList(v), " ") }

func (choiceKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	frame := ChoiceFrame(f.Column())
	return framedFilter(f, op, o, frame, frame, func(v any) (string, error) {
		s, ok := scalarString(v)
		if !ok {
			return "", opErr("value of %q must be text", f.Title)
		}
		return "%" + Sep + likeEscape(jsonText(Lower(s))) + Sep + "%", nil
	}, jsonText)
}

func (choiceKind) SortExpr(f *Def) string { return Fold(f.Column()) }
