package field

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"coreportal/internal/store"
)

// Dates are stored as YYYY-MM-DD text and datetimes as fixed-width UTC
// ISO 8601 text (DateTimeLayout) on both databases: fixed width makes text
// order equal to time order, so comparisons are by date, identically everywhere.

// DateTimeLayout is the stored and returned form of datetime values.
const DateTimeLayout = "2006-01-02T15:04:05.000Z"

type dateKind struct {
	noSettings
	withTime bool
}

func init() {
	register(Date, dateKind{})
	register(DateTime, dateKind{withTime: true})
}

func (dateKind) Columns(d store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), ciType(d)}}
}

// ParseDateTime accepts RFC 3339 (with or without fraction or zone) and a bare date.
func ParseDateTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", time.DateOnly} {
		if t, err := time.Parse(l, s); err == nil {
			// an offset can move the year out of the stored YYYY range
			if u := t.UTC(); u.Year() >= 0 && u.Year() <= 9999 {
				return u, true
			}
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

func (k dateKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, invalid(f, "value must be a string")
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	if !k.withTime {
		t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
		if err != nil {
			return nil, invalid(f, "value must be a date YYYY-MM-DD")
		}
		return t.Format(time.DateOnly), nil
	}
	t, ok := ParseDateTime(s)
	if !ok {
		return nil, invalid(f, "value must be an ISO 8601 date and time")
	}
	return t.Format(DateTimeLayout), nil
}

func (dateKind) Cells(f *Def, v any) Cells { return Cells{f.Column(): v} }

func (dateKind) Decode(_ *Def, raw any) any { return asString(raw) }

func (dateKind) Search(*Def, any) string { return "" }

func (k dateKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	switch op {
	case OpContains, OpStartsWith:
		return "", nil, unsupported(f, op)
	}
	if !k.withTime {
		return orderedFilter(f, f.Column(), op, o, func(v any) (any, error) {
			d, ok := ResolveDay(v, o.Today)
			if !ok {
				return nil, opErr("value of %q must be a date YYYY-MM-DD or [Сегодня]±N", f.Title)
			}
			return d.Format(time.DateOnly), nil
		})
	}
	return DayRangeFilter(f, f.Column(), op, o, func(t time.Time) any { return t.UTC().Format(DateTimeLayout) })
}

// DayRangeFilter compares a timestamp column: a date-only operand (or
// [Сегодня]±N) means the whole day, so eq is "during that day", gt is "after
// that day" and lte is "up to the end of that day"; a full timestamp compares exactly.
func DayRangeFilter(f *Def, col, op string, o Operand, enc func(time.Time) any) (string, []any, error) {
	if s, ok := emptyOps(col, op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	type span struct {
		from, to time.Time
		exact    bool
	}
	spans := make([]span, len(vals))
	for i, v := range vals {
		if d, ok := ResolveDay(v, o.Today); ok {
			spans[i] = span{from: d, to: d.AddDate(0, 0, 1)}
			continue
		}
		s, _ := v.(string)
		t, ok := ParseDateTime(s)
		if !ok {
			return "", nil, opErr("value of %q must be a date or an ISO 8601 date and time", f.Title)
		}
		spans[i] = span{from: t, exact: true}
	}
	one := func(sp span, op string) (string, []any) {
		if sp.exact {
			switch op {
			case OpEq:
				return col + " = ?", []any{enc(sp.from)}
			case OpNe:
				return "(" + col + " IS NULL OR " + col + " <> ?)", []any{enc(sp.from)}
			case OpGt:
				return col + " > ?", []any{enc(sp.from)}
			case OpGte:
				return col + " >= ?", []any{enc(sp.from)}
			case OpLt:
				return col + " < ?", []any{enc(sp.from)}
			default:
				return col + " <= ?", []any{enc(sp.from)}
			}
		}
		switch op {
		case OpEq:
			return "(" + col + " >= ? AND " + col + " < ?)", []any{enc(sp.from), enc(sp.to)}
		case OpNe:
			return "(" + col + " IS NULL OR " + col + " < ? OR " + col + " >= ?)", []any{enc(sp.from), enc(sp.to)}
		case OpGt:
			return col + " >= ?", []any{enc(sp.to)}
		case OpGte:
			return col + " >= ?", []any{enc(sp.from)}
		case OpLt:
			return col + " < ?", []any{enc(sp.from)}
		default:
			return col + " < ?", []any{enc(sp.to)}
		}
	}
	switch op {
	case OpEq, OpNe, OpGt, OpGte, OpLt, OpLte:
		s, a := one(spans[0], op)
		return s, a, nil
	case OpIn:
		var parts []string
		var args []any
		for _, sp := range spans {
			s, a := one(sp, OpEq)
			parts = append(parts, s)
			args = append(args, a...)
		}
		return "(" + strings.Join(parts, " OR ") + ")", args, nil
	}
	return "", nil, unsupported(f, op)
}

func (dateKind) SortExpr(f *Def) string { return f.Column() }
