// Package query parses the filter and sort parameters of item listings and
// turns them into SQL over a list's item table. Column names in the SQL come
// only from the list's schema (field.Def), never from the request: a column
// the schema does not know is a validation error.
package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/field"
)

// Limits of one filter.
const (
	MaxConditions = 50
	MaxSortKeys   = 10
	maxInput      = 64 << 10
)

// FilterCondition is one filter condition; `op` is accepted as a synonym of `operator`.
type FilterCondition struct {
	Column   string `json:"column"`
	Operator string `json:"operator,omitempty"`
	Op       string `json:"op,omitempty"`
	Value    any    `json:"value,omitempty"`
}

// FilterSpec is { logic, conditions }.
type FilterSpec struct {
	Logic      string            `json:"logic"`
	Conditions []FilterCondition `json:"conditions"`
}

// SortKey is one ordering column.
type SortKey struct {
	Column    string `json:"column"`
	Direction string `json:"direction"`
}

// Resolver maps a column reference (field UUID, internal_name or meta column) to its field.
type Resolver func(column string) (*field.Def, bool)

// ParseFilter decodes and checks the shape of a JSON filter ("" = no filter).
func ParseFilter(field_, raw string) (FilterSpec, error) {
	var f FilterSpec
	if strings.TrimSpace(raw) == "" {
		return FilterSpec{Logic: "and"}, nil
	}
	if len(raw) > maxInput {
		return f, fault.Validation(field_, "%s is too long", field_)
	}
	var tmp struct {
		Logic      string            `json:"logic"`
		Conditions []json.RawMessage `json:"conditions"`
	}
	if err := decodeStrict([]byte(raw), &tmp); err != nil || tmp.Conditions == nil && strings.TrimSpace(raw) == "null" {
		return f, fault.Validation(field_, "%s must be JSON { logic, conditions[] } with no other keys", field_)
	}
	f.Logic = tmp.Logic
	for _, c := range tmp.Conditions {
		var cond FilterCondition
		if err := decodeStrict(c, &cond); err != nil {
			return f, fault.Validation(field_, "each condition must be { column, operator (or op), value } with no other keys")
		}
		f.Conditions = append(f.Conditions, cond)
	}
	return f, f.Check(field_)
}

// Check validates logic, operators and the number of conditions.
func (f *FilterSpec) Check(name string) error {
	if f.Logic == "" {
		f.Logic = "and"
	}
	f.Logic = strings.ToLower(f.Logic)
	if f.Logic != "and" && f.Logic != "or" {
		return fault.Validation(name, "logic must be and or or")
	}
	if len(f.Conditions) > MaxConditions {
		return fault.Validation(name, "at most %d conditions", MaxConditions)
	}
	for i := range f.Conditions {
		c := &f.Conditions[i]
		if c.Operator == "" {
			c.Operator = c.Op
		}
		c.Op = ""
		if !slices.Contains(field.Operators, c.Operator) {
			return fault.Validation(name, "condition %d: operator %q is not one of %s", i+1, c.Operator, strings.Join(field.Operators, ", "))
		}
		if strings.TrimSpace(c.Column) == "" {
			return fault.Validation(name, "condition %d: column is required", i+1)
		}
	}
	return nil
}

// SQL builds the condition ("" when the filter is empty).
func (f FilterSpec) SQL(name string, resolve Resolver, o field.Operand) (string, []any, error) {
	var parts []string
	var args []any
	for i, c := range f.Conditions {
		def, ok := resolve(c.Column)
		if !ok {
			return "", nil, fault.Validation(name, "condition %d: unknown column %q", i+1, c.Column)
		}
		kind := field.MustOf(def)
		o.Value = c.Value
		s, a, err := kind.Filter(def, c.Operator, o)
		if err != nil {
			return "", nil, fault.Validation(name, "condition %d: %s", i+1, err.Error())
		}
		parts = append(parts, "("+s+")")
		args = append(args, a...)
	}
	if len(parts) == 0 {
		return "", nil, nil
	}
	return "(" + strings.Join(parts, " "+strings.ToUpper(f.Logic)+" ") + ")", args, nil
}

// ParseSort reads a JSON array of {column, direction} or "col:asc,col2:desc".
func ParseSort(name, raw string) ([]SortKey, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	if len(raw) > maxInput {
		return nil, fault.Validation(name, "%s is too long", name)
	}
	var keys []SortKey
	if strings.HasPrefix(raw, "[") || strings.HasPrefix(raw, "{") {
		if strings.HasPrefix(raw, "{") {
			raw = "[" + raw + "]"
		}
		if err := decodeStrict([]byte(raw), &keys); err != nil {
			return nil, fault.Validation(name, "%s must be a JSON array of { column, direction } (no other keys) or col:asc,col2:desc", name)
		}
	} else {
		for _, part := range strings.Split(raw, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			col, dir, _ := strings.Cut(part, ":")
			keys = append(keys, SortKey{Column: strings.TrimSpace(col), Direction: strings.TrimSpace(dir)})
		}
	}
	return keys, CheckSort(name, keys)
}

// decodeStrict decodes one JSON value and refuses unknown keys and trailing
// data: a mistyped key ("dir", "and") must not silently widen a listing.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// CheckSort validates directions (default asc) and the number of keys.
func CheckSort(name string, keys []SortKey) error {
	if len(keys) > MaxSortKeys {
		return fault.Validation(name, "at most %d sort columns", MaxSortKeys)
	}
	for i := range keys {
		k := &keys[i]
		k.Direction = strings.ToLower(k.Direction)
		if k.Direction == "" {
			k.Direction = "asc"
		}
		if k.Direction != "asc" && k.Direction != "desc" {
			return fault.Validation(name, "direction of %q must be asc or desc", k.Column)
		}
		if strings.TrimSpace(k.Column) == "" {
			return fault.Validation(name, "sort column is required")
		}
	}
	return nil
}

// OrderBy builds the ORDER BY list; the item number breaks ties so that paging is stable.
func OrderBy(name string, keys []SortKey, resolve Resolver) (string, error) {
	var parts []string
	tie := "id DESC"
	for _, k := range keys {
		def, ok := resolve(k.Column)
		if !ok {
			return "", fault.Validation(name, "unknown sort column %q", k.Column)
		}
		dir := "ASC"
		if k.Direction == "desc" {
			dir = "DESC"
		}
		expr := field.OrderExpr(def)
		// empty values last in both directions, identically on both databases
		parts = append(parts, fmt.Sprintf("(%s IS NULL) ASC", field.NullExpr(def)), expr+" "+dir)
		if expr == "id" {
			tie = ""
		}
	}
	if tie != "" {
		parts = append(parts, tie)
	}
	return strings.Join(parts, ", "), nil
}
