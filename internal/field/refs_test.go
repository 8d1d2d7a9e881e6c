package field

import (
	"reflect"
	"strings"
	"testing"

	"coreportal/internal/store"
)

// TestStoredReferences: the compact forms, read back from themselves and
// from the JSON of tables written before (displays dropped: they are
// resolved at read time).
func TestStoredReferences(t *testing.T) {
	yes, no := true, false
	const g = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
	multi := &Def{Type: Person, Col: 1, Settings: FieldSettings{AllowMultiple: &yes}}
	single := &Def{Type: Person, Col: 1, Settings: FieldSettings{AllowMultiple: &no}}
	lk := &Def{Type: Lookup, Col: 2, Settings: FieldSettings{AllowMultiple: &yes}}
	lk1 := &Def{Type: Lookup, Col: 2}
	cases := []struct {
		f      *Def
		stored any
		want   any
	}{
		{multi, "u:" + ann + ",g:" + g, []Subject{{"user", ann, ""}, {"group", g, ""}}},
		{multi, `[{"principalType":"user","id":"` + ann + `","display":"Ann"}]`, []Subject{{"user", ann, ""}}},
		{single, "g:" + g, Subject{"group", g, ""}},
		{single, "", nil},
		{single, nil, nil},
		{lk, "12,40", []LookupValue{{12, ""}, {40, ""}}},
		{lk, `[{"itemId":7,"display":"Seven"}]`, []LookupValue{{7, ""}}},
		{lk1, "9", LookupValue{9, ""}},
		{lk1, int64(9), LookupValue{9, ""}},
		{lk1, []byte("9"), LookupValue{9, ""}},
	}
	for _, c := range cases {
		got := MustOf(c.f).Decode(c.f, c.stored)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v: %#v, want %#v", c.f.Type, c.stored, got, c.want)
		}
		if c.want == nil {
			continue
		}
		back := MustOf(c.f).Cells(c.f, got)[c.f.Column()]
		if s, ok := c.stored.(string); ok && !strings.HasPrefix(s, "[") && back != s {
			t.Errorf("%s %v: cells %v", c.f.Type, c.stored, back)
		}
	}
	if c, _ := CompactValue(multi, []any{map[string]any{"principalType": "group", "id": g, "display": "x"}}); c != "g:"+g {
		t.Errorf("compact %q", c)
	}
}

// TestReferenceFilters: the SQL of every operator on person and lookup
// fields, per database (the store tests of lists run them).
func TestReferenceFilters(t *testing.T) {
	target := func(*Def) (LookupTarget, bool) {
		return LookupTarget{Table: "li_t", Key: "id", Display: "cp_lower(lk.f_1)", Text: "cp_lower(f_1)", Textual: true}, true
	}
	sq := &Displays{Dialect: store.SQLite, Table: "li_x", Target: target}
	pg := &Displays{Dialect: store.Postgres, Table: "li_x", Target: target}
	cases := []struct {
		typ  string
		d    *Displays
		op   string
		v    any
		want string
		args []any
	}{
		{Person, sq, OpEq, ann, `(f_3 LIKE ? ESCAPE '\')`, []any{"%" + ann + "%"}},
		{Person, sq, OpEq, PlaceholderMe, `(f_3 LIKE ? ESCAPE '\')`, []any{"%" + ann + "%"}},
		{Person, sq, OpNe, ann, `(f_3 IS NULL OR NOT (f_3 LIKE ? ESCAPE '\'))`, []any{"%" + ann + "%"}},
		{Person, sq, OpIn, []any{ann, map[string]any{"id": ann}}, `(f_3 LIKE ? ESCAPE '\' OR f_3 LIKE ? ESCAPE '\')`, []any{"%" + ann + "%", "%" + ann + "%"}},
		{Person, sq, OpIsEmpty, nil, `f_3 IS NULL`, nil},
		{Person, sq, OpIsNotEmpty, nil, `f_3 IS NOT NULL`, nil},
		{Person, sq, OpContains, "A_n", `f_3 IS NOT NULL AND EXISTS (SELECT 1 FROM json_each('["' || replace(f_3, ',', '","') || '"]') WHERE value IN (SELECT 'u:' || id FROM users WHERE cp_lower(display_name) LIKE ? ESCAPE '\' UNION ALL SELECT 'g:' || id FROM groups WHERE cp_lower(name) LIKE ? ESCAPE '\'))`, []any{`%a\_n%`, `%a\_n%`}},
		{Person, pg, OpStartsWith, "Ann", `f_3 IS NOT NULL AND string_to_array(f_3, ',') && ARRAY(SELECT 'u:' || CAST(id AS TEXT) FROM users WHERE cp_lower(display_name) LIKE ? ESCAPE '\' UNION ALL SELECT 'g:' || CAST(id AS TEXT) FROM groups WHERE cp_lower(name) LIKE ? ESCAPE '\')`, []any{"ann%", "ann%"}},
		{Person, sq, OpGt, ann, "", nil},
		{Lookup, sq, OpEq, float64(7), `((',' || f_3 || ',') LIKE ? ESCAPE '\')`, []any{"%,7,%"}},
		{Lookup, sq, OpIn, "7, 8", `((',' || f_3 || ',') LIKE ? ESCAPE '\' OR (',' || f_3 || ',') LIKE ? ESCAPE '\')`, []any{"%,7,%", "%,8,%"}},
		{Lookup, sq, OpNe, map[string]any{"itemId": float64(7)}, `(f_3 IS NULL OR NOT ((',' || f_3 || ',') LIKE ? ESCAPE '\'))`, []any{"%,7,%"}},
		{Lookup, sq, OpEq, "seven", "", nil},
		{Lookup, sq, OpContains, "Ber", `f_3 IS NOT NULL AND EXISTS (SELECT 1 FROM json_each('[' || f_3 || ']') WHERE value IN (SELECT lk.id FROM li_t lk WHERE cp_lower(f_1) LIKE ? ESCAPE '\'))`, []any{"%ber%"}},
		{Lookup, pg, OpContains, "Ber", `f_3 IS NOT NULL AND CAST(string_to_array(f_3, ',') AS bigint[]) && ARRAY(SELECT lk.id FROM li_t lk WHERE cp_lower(f_1) LIKE ? ESCAPE '\')`, []any{"%ber%"}},
		{Lookup, nil, OpContains, "Ber", "", nil},
		{Lookup, sq, OpLt, float64(3), "", nil},
	}
	for _, c := range cases {
		f := &Def{ID: "f", Title: "F", Type: c.typ, Col: 3, Displays: c.d}
		got, args, err := MustOf(f).Filter(f, c.op, Operand{Value: c.v, UserID: ann})
		if c.want == "" {
			if err == nil {
				t.Errorf("%s %s %v: accepted: %s", c.typ, c.op, c.v, got)
			}
			continue
		}
		if err != nil || got != c.want || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%s %s %v:\n got %s %v %v\nwant %s %v", c.typ, c.op, c.v, got, args, err, c.want, c.args)
		}
	}
	// sorting: the display of the first entry
	p := &Def{Type: Person, Col: 3, Displays: pg}
	if got := OrderExpr(p); !strings.Contains(got, "FROM users WHERE id = CAST(substr(li_x.f_3, 3, 36) AS uuid)") {
		t.Errorf("person order %s", got)
	}
	l := &Def{Type: Lookup, Col: 3, Displays: sq}
	if got := OrderExpr(l); got != "coalesce((SELECT cp_lower(lk.f_1) FROM li_t lk WHERE lk.id = CAST(substr(li_x.f_3, 1, instr(li_x.f_3 || ',', ',') - 1) AS INTEGER)), '')" {
		t.Errorf("lookup order %s", got)
	}
	if got := OrderExpr(&Def{Type: Lookup, Col: 3}); got != "f_3" {
		t.Errorf("lookup order without displays %s", got)
	}
}
