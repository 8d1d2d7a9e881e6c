package field

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// Lookup values are stored as the target item numbers in f_n (refs.go); the
// displays are read from the target at read time.
type lookupKind struct{}

// LookupValue is one lookup entry.
type LookupValue struct {
	ItemID  int64  `json:"itemId"`
	Display string `json:"display"`
}

// Library system columns usable as lookupFieldId (SPEC.md, List field rule 3).
var LibrarySystemColumns = []string{"name", "item_number", "item_type", "mime_type"}

func init() { register(Lookup, lookupKind{}) }

func (lookupKind) Columns(d store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), "TEXT"}}
}

func (lookupKind) CheckSettings(s FieldSettings, _ bool) (FieldSettings, error) {
	if (s.LookupListID == "") == (s.LookupLibraryID == "") {
		return FieldSettings{}, fmt.Errorf("settings: exactly one of lookupListId and lookupLibraryId is required")
	}
	for _, id := range []*string{&s.LookupListID, &s.LookupLibraryID, &s.LookupNodeID} {
		if *id != "" {
			if _, err := uuid.Parse(*id); err != nil || len(*id) != 36 {
				return FieldSettings{}, fmt.Errorf("settings: %q is not a UUID (8-4-4-4-12 hex digits)", *id)
			}
			*id = strings.ToLower(*id) // stored and compared in one form
		}
	}
	if s.LookupFieldID != "" {
		_, err := uuid.Parse(s.LookupFieldID)
		sys := false
		for _, c := range LibrarySystemColumns {
			sys = sys || c == s.LookupFieldID
		}
		if err != nil && !(sys && s.LookupLibraryID != "") && !(s.LookupFieldID == "title" || s.LookupFieldID == "item_number") {
			return FieldSettings{}, fmt.Errorf("settings: lookupFieldId must be a field UUID or a system column")
		}
	}
	return FieldSettings{LookupListID: s.LookupListID, LookupLibraryID: s.LookupLibraryID, LookupNodeID: s.LookupNodeID,
		LookupFieldID: s.LookupFieldID, AllowMultiple: boolPtr(s.Multiple(false))}, nil
}

func lookupID(raw json.RawMessage) (int64, bool) {
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return n, err == nil
	}
	var obj struct {
		ItemID json.RawMessage `json:"itemId"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.ItemID != nil {
		return lookupID(obj.ItemID)
	}
	return 0, false
}

func (lookupKind) Normalize(ctx context.Context, f *Def, raw json.RawMessage, env Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, invalid(f, "value must be { itemId } or an array of them")
		}
	} else {
		items = []json.RawMessage{raw}
	}
	var out []LookupValue
	for _, it := range items {
		id, ok := lookupID(it)
		if !ok || id <= 0 {
			return nil, invalid(f, "itemId must be a positive item number")
		}
		dup := false
		for _, o := range out {
			dup = dup || o.ItemID == id
		}
		if dup {
			continue
		}
		d, err := env.LookupItem(ctx, f, id)
		if err != nil {
			return nil, invalid(f, "item %d does not exist in the lookup target", id)
		}
		out = append(out, LookupValue{ItemID: id, Display: d})
	}
	if len(out) == 0 {
		return nil, nil
	}
	if !f.Settings.Multiple(false) {
		if len(out) > 1 {
			return nil, invalid(f, "only one item is allowed")
		}
		return out[0], nil
	}
	return out, nil
}

// Lookups returns the entries of a stored lookup value.
func Lookups(v any) []LookupValue {
	switch x := v.(type) {
	case []LookupValue:
		return x
	case LookupValue:
		return []LookupValue{x}
	case map[string]any, []any:
		j, _ := json.Marshal(x)
		var list []LookupValue
		if json.Unmarshal(j, &list) != nil {
			var one LookupValue
			if json.Unmarshal(j, &one) == nil && one.ItemID != 0 {
				return []LookupValue{one}
			}
		}
		return list
	}
	return nil
}

func (lookupKind) Cells(f *Def, v any) Cells {
	list := Lookups(v)
	if len(list) == 0 {
		return Cells{f.Column(): nil}
	}
	return Cells{f.Column(): CompactLookups(list)}
}

// Decode reads the stored item numbers; their displays are empty until the
// owner of the table resolves them.
func (lookupKind) Decode(f *Def, raw any) any {
	var list []LookupValue
	switch x := raw.(type) {
	case int64:
		list = []LookupValue{{ItemID: x}}
	default:
		s, _ := asString(raw).(string)
		list = parseLookups(s)
	}
	if len(list) == 0 {
		return nil
	}
	if !f.Settings.Multiple(false) {
		return list[0]
	}
	return list
}

func (lookupKind) Search(_ *Def, v any) string {
	var parts []string
	for _, l := range Lookups(v) {
		parts = append(parts, l.Display)
	}
	return strings.Join(parts, " ")
}

func (lookupKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	col := f.Column()
	if s, ok := emptyOps(col, op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	switch op {
	case OpEq, OpNe, OpIn:
		return entriesMatch(f, op, "(',' || "+col+" || ',')", vals, func(v any) (string, error) {
			n, err := lookupKey(f, v)
			return "%," + n + ",%", err
		})
	case OpContains, OpStartsWith:
		p, err := displayPattern(f, op, vals)
		if err != nil {
			return "", nil, err
		}
		d := f.Displays
		if d == nil || d.Target == nil {
			return "", nil, unsupported(f, op)
		}
		t, ok := d.Target(f)
		if !ok {
			return "1 = 0", nil, nil // the target is gone: no display matches
		}
		sub := "SELECT lk." + t.Key + " FROM " + t.Table + " lk WHERE " + t.where() + t.Text + " LIKE ?" + esc
		return col + " IS NOT NULL AND " + anyOf(d, col, sub, true), []any{p}, nil
	}
	return "", nil, unsupported(f, op)
}

// lookupKey is the item number a lookup condition names.
func lookupKey(f *Def, v any) (string, error) {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return strconv.FormatInt(n, 10), nil
		}
	case map[string]any:
		if n, ok := x["itemId"].(float64); ok && n == float64(int64(n)) {
			return strconv.FormatInt(int64(n), 10), nil
		}
	}
	return "", opErr("value of %q must be an item number", f.Title)
}

// SortExpr is the stored column (what indexes may cover); listings order by
// the display through OrderExpr.
func (lookupKind) SortExpr(f *Def) string { return f.Column() }

// lookupOrder is the display of the first target item, or NULL ("" when the
// target is unknown: the stored numbers then order the rows).
func lookupOrder(f *Def) string {
	d := f.Displays
	if d == nil || d.Target == nil {
		return ""
	}
	t, ok := d.Target(f)
	if !ok {
		return ""
	}
	col := outerColumn(f)
	first := "CAST(substr(" + col + ", 1, instr(" + col + " || ',', ',') - 1) AS INTEGER)"
	if d.postgres() {
		first = "CAST(split_part(" + col + ", ',', 1) AS bigint)"
	}
	e := "(SELECT " + t.Display + " FROM " + t.Table + " lk WHERE " + t.where() + "lk." + t.Key + " = " + first + ")"
	if t.Textual {
		e = "coalesce(" + e + ", '')"
	}
	return e
}

// NullExpr is the expression whose NULL puts a row among the empty values
// when a listing orders by f: the stored column for person and lookup values
// (their display subquery would run twice per row otherwise; an entry whose
// subject or target vanished orders as an empty display within the others).
func NullExpr(f *Def) string {
	if f.Type == Person || f.Type == Lookup {
		return f.Column()
	}
	return OrderExpr(f)
}

// OrderExpr is the SQL expression a listing orders a field by: the display
// of the first entry for person and lookup fields, SortExpr otherwise.
func OrderExpr(f *Def) string {
	switch f.Type {
	case Person:
		if f.Displays != nil {
			return personOrder(f)
		}
	case Lookup:
		if e := lookupOrder(f); e != "" {
			return e
		}
	}
	return MustOf(f).SortExpr(f)
}
