package field

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"coreportal/internal/store"
)

type numberKind struct{ noSettings }

func init() { register(Number, numberKind{}) }

func (numberKind) Columns(d store.Dialect, f *Def) [][2]string {
	if d == store.Postgres {
		return [][2]string{{f.Column(), "DOUBLE PRECISION"}}
	}
	return [][2]string{{f.Column(), "REAL"}}
}

func (numberKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		// numbers sent as strings by forms are accepted: "12.5"
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, invalid(f, "value must be a number")
		}
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		if n, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return nil, invalid(f, "value must be a number")
		}
	}
	if math.IsInf(n, 0) || math.IsNaN(n) {
		return nil, invalid(f, "value must be a finite number")
	}
	if n == 0 {
		n = 0 // -0 is 0: stored, shown and compared as 0
	}
	return n, nil
}

func (numberKind) Cells(f *Def, v any) Cells { return Cells{f.Column(): v} }

func (numberKind) Decode(f *Def, raw any) any {
	var n float64
	switch x := raw.(type) {
	case nil:
		return nil
	case float64:
		n = x
	case int64:
		if f.Col == 0 {
			return x
		}
		n = float64(x)
	case []byte:
		n, _ = strconv.ParseFloat(string(x), 64)
	case string:
		n, _ = strconv.ParseFloat(x, 64)
	default:
		return nil
	}
	if f.Col == 0 {
		return int64(n)
	}
	return n
}

func (numberKind) Search(*Def, any) string { return "" }

func toNumber(f *Def) func(v any) (any, error) {
	return func(v any) (any, error) {
		n, ok := math.NaN(), false
		switch x := v.(type) {
		case float64:
			n, ok = x, true
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			n, ok = p, err == nil && !math.IsInf(p, 0) && !math.IsNaN(p)
		}
		if !ok {
			return nil, opErr("value of %q must be a number", f.Title)
		}
		if f.Column() == "id" { // the item number: a 64-bit integer column
			if n != math.Trunc(n) || n < math.MinInt64 || n >= math.MaxInt64 {
				return nil, opErr("value of %q must be a whole number of at most 19 digits", f.Title)
			}
			return int64(n), nil
		}
		return n, nil
	}
}

func (numberKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	switch op {
	case OpContains, OpStartsWith:
		return "", nil, unsupported(f, op)
	}
	return orderedFilter(f, f.Column(), op, o, toNumber(f))
}

func (numberKind) SortExpr(f *Def) string { return f.Column() }
