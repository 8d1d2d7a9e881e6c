package field

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Operators of the filter format.
const (
	OpEq, OpNe, OpContains, OpStartsWith = "eq", "ne", "contains", "startsWith"
	OpGt, OpGte, OpLt, OpLte             = "gt", "gte", "lt", "lte"
	OpIsEmpty, OpIsNotEmpty, OpIn        = "isEmpty", "isNotEmpty", "in"
	PlaceholderMe, PlaceholderToday      = "[Я]", "[Сегодня]"
	maxInValues                          = 500
)

// Operators lists every operator.
var Operators = []string{OpEq, OpNe, OpContains, OpStartsWith, OpGt, OpGte, OpLt, OpLte, OpIsEmpty, OpIsNotEmpty, OpIn}

// Operand is the value of a condition with what placeholders resolve to.
type Operand struct {
	Value  any // decoded JSON: string, float64, bool, []any or nil
	UserID string
	Today  time.Time // UTC midnight of the current day
}

// OpError is an invalid condition (unsupported operator or value).
type OpError struct{ Message string }

func (e *OpError) Error() string { return e.Message }

func opErr(format string, args ...any) error { return &OpError{Message: fmt.Sprintf(format, args...)} }

func unsupported(f *Def, op string) error {
	return opErr("operator %s does not apply to field %q of type %s", op, f.Title, f.Type)
}

// values returns the operand as a list (for in) or a one-element list.
func (o Operand) values(op string) ([]any, error) {
	if op == OpIn {
		arr, ok := o.Value.([]any)
		if !ok {
			if s, isStr := o.Value.(string); isStr {
				var out []any
				for _, p := range strings.Split(s, ",") {
					if p = strings.TrimSpace(p); p != "" {
						out = append(out, p)
					}
				}
				if len(out) == 0 || len(out) > maxInValues {
					return nil, opErr("in needs 1 to %d values", maxInValues)
				}
				return out, nil
			}
			return []any{o.Value}, nil
		}
		if len(arr) == 0 || len(arr) > maxInValues {
			return nil, opErr("in needs 1 to %d values", maxInValues)
		}
		return arr, nil
	}
	return []any{o.Value}, nil
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

const esc = ` ESCAPE '\'`

// maxRune closes prefix ranges: every string starting with p sorts at or before p+maxRune (binary/C collation).
const maxRune = "\U0010FFFF"

func emptyOps(col, op string) (string, bool) {
	switch op {
	case OpIsEmpty:
		return col + " IS NULL", true
	case OpIsNotEmpty:
		return col + " IS NOT NULL", true
	}
	return "", false
}

// textFilter compares lower-cased text: ci is the folded expression or the
// lower-cased column.
func textFilter(f *Def, ci, op string, o Operand) (string, []any, error) {
	if s, ok := emptyOps(f.Column(), op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	strs := make([]any, len(vals))
	for i, v := range vals {
		s, ok := scalarString(v)
		if !ok {
			return "", nil, opErr("value of %q must be text", f.Title)
		}
		strs[i] = Lower(s)
	}
	switch op {
	case OpEq:
		return ci + " = ?", strs, nil
	case OpNe:
		return "(" + ci + " IS NULL OR " + ci + " <> ?)", strs, nil
	case OpContains:
		return ci + " LIKE ?" + esc, []any{"%" + likeEscape(strs[0].(string)) + "%"}, nil
	case OpStartsWith:
		// a prefix is a range of the lower-cased column: an index on it applies on both databases
		p := strs[0].(string)
		if p == "" {
			return ci + " IS NOT NULL", nil, nil
		}
		return "(" + ci + " >= ? AND " + ci + " <= ?)", []any{p, p + maxRune}, nil
	case OpGt:
		return ci + " > ?", strs, nil
	case OpGte:
		return ci + " >= ?", strs, nil
	case OpLt:
		return ci + " < ?", strs, nil
	case OpLte:
		return ci + " <= ?", strs, nil
	case OpIn:
		return ci + " IN (" + placeholders(len(strs)) + ")", strs, nil
	}
	return "", nil, unsupported(f, op)
}

// framedFilter matches entries of multi-valued fields. eq/ne/in look for
// whole entries in keyExpr (entry gives the LIKE pattern of one entry),
// contains and startsWith look into ci, the framed lower-cased displays
// ("\x1fa\x1fb\x1f"); text turns a lower-cased needle into its stored form.
func framedFilter(f *Def, op string, o Operand, keyExpr, ci string, entry func(v any) (string, error), text func(string) string) (string, []any, error) {
	if s, ok := emptyOps(f.Column(), op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	switch op {
	case OpEq, OpNe, OpIn:
		return entriesMatch(f, op, keyExpr, vals, entry)
	case OpContains, OpStartsWith:
		s, ok := scalarString(vals[0])
		if !ok {
			return "", nil, opErr("value of %q must be text", f.Title)
		}
		s = likeEscape(text(Lower(strings.ReplaceAll(s, Sep, ""))))
		if op == OpContains {
			return ci + " LIKE ?" + esc, []any{"%" + s + "%"}, nil
		}
		return ci + " LIKE ?" + esc, []any{"%" + Sep + s + "%"}, nil
	}
	return "", nil, unsupported(f, op)
}

// entriesMatch is eq, ne or in over the entries of a multi-valued column:
// keyExpr LIKE the pattern of one of the values (pattern gives it, escaped),
// ne also matching an empty column.
func entriesMatch(f *Def, op, keyExpr string, vals []any, pattern func(v any) (string, error)) (string, []any, error) {
	parts := make([]string, 0, len(vals))
	args := make([]any, 0, len(vals))
	for _, v := range vals {
		p, err := pattern(v)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, keyExpr+" LIKE ?"+esc)
		args = append(args, p)
	}
	cond := "(" + strings.Join(parts, " OR ") + ")"
	if op == OpNe {
		cond = "(" + f.Column() + " IS NULL OR NOT " + cond + ")"
	}
	return cond, args, nil
}

// displayPattern is the LIKE pattern of contains or startsWith on a folded
// display: the lower-cased needle, escaped.
func displayPattern(f *Def, op string, vals []any) (string, error) {
	s, ok := scalarString(vals[0])
	if !ok {
		return "", opErr("value of %q must be text", f.Title)
	}
	p := likeEscape(Lower(s)) + "%"
	if op == OpContains {
		p = "%" + p
	}
	return p, nil
}

// orderedFilter compares a typed column with converted values.
func orderedFilter(f *Def, col, op string, o Operand, conv func(v any) (any, error)) (string, []any, error) {
	if s, ok := emptyOps(col, op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		if args[i], err = conv(v); err != nil {
			return "", nil, err
		}
	}
	switch op {
	case OpEq:
		return col + " = ?", args, nil
	case OpNe:
		return "(" + col + " IS NULL OR " + col + " <> ?)", args, nil
	case OpGt:
		return col + " > ?", args, nil
	case OpGte:
		return col + " >= ?", args, nil
	case OpLt:
		return col + " < ?", args, nil
	case OpLte:
		return col + " <= ?", args, nil
	case OpIn:
		return col + " IN (" + placeholders(len(args)) + ")", args, nil
	}
	return "", nil, unsupported(f, op)
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// ResolveDay turns a date operand (YYYY-MM-DD or [Сегодня]±N) into a day.
func ResolveDay(v any, today time.Time) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, PlaceholderToday); ok {
		rest = strings.ReplaceAll(rest, " ", "")
		if rest == "" {
			return today, true
		}
		n, err := strconv.Atoi(rest)
		if err != nil || (rest[0] != '+' && rest[0] != '-') || n > 100000 || n < -100000 {
			return time.Time{}, false
		}
		return today.AddDate(0, 0, n), true
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
