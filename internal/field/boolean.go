package field

import (
	"context"
	"encoding/json"

	"coreportal/internal/store"
)

type booleanKind struct{ noSettings }

func init() { register(Boolean, booleanKind{}) }

func (booleanKind) Columns(_ store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), "BOOLEAN"}}
}

func (booleanKind) Normalize(_ context.Context, f *Def, raw json.RawMessage, _ Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, invalid(f, "value must be true or false")
	}
	return b, nil
}

func (booleanKind) Cells(f *Def, v any) Cells { return Cells{f.Column(): v} }

func (booleanKind) Decode(_ *Def, raw any) any {
	switch x := raw.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	}
	return nil
}

func (booleanKind) Search(*Def, any) string { return "" }

func (booleanKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	switch op {
	case OpEq, OpNe, OpIn, OpIsEmpty, OpIsNotEmpty:
	default:
		return "", nil, unsupported(f, op)
	}
	return orderedFilter(f, f.Column(), op, o, func(v any) (any, error) {
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			switch x {
			case "true", "1":
				return true, nil
			case "false", "0":
				return false, nil
			}
		case float64:
			return x != 0, nil
		}
		return nil, opErr("value of %q must be true or false", f.Title)
	})
}

func (booleanKind) SortExpr(f *Def) string { return f.Column() }
