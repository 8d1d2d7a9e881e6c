package query

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"coreportal/internal/field"
)

// schema of the fuzz target: one field of every type.
func testResolver() Resolver {
	defs := map[string]*field.Def{}
	multi := true
	for i, typ := range field.Types() {
		d := &field.Def{ID: typ, InternalName: typ, Title: typ, Type: typ, Col: i + 1}
		switch typ {
		case field.Choice:
			d.Settings = field.FieldSettings{Choices: []string{"a", "b"}, AllowMultiple: &multi}
		case field.Lookup:
			d.Settings = field.FieldSettings{LookupListID: "0f8fad5b-d9cb-469f-a165-70867728950e"}
		}
		defs[typ] = d
	}
	defs["__created_at"] = &field.Def{ID: "__created_at", Type: field.DateTime, ColName: "created_at"}
	defs["item_number"] = &field.Def{ID: "item_number", Type: field.Number}
	return func(c string) (*field.Def, bool) { d, ok := defs[c]; return d, ok }
}

// safeSQL is what generated SQL may contain: our identifiers, operators,
// placeholders and fixed literals; never a fragment of the request.
var safeSQL = regexp.MustCompile(`^[a-z0-9_ ()=<>?,.'\\A-Z]*$`)

func checkSQL(t *testing.T, sql string) {
	t.Helper()
	// fixed literals: the escape character, the JSON punctuation that field.ChoiceFrame replaces
	rest := strings.NewReplacer(`ESCAPE '\'`, "", "1 = 0", "", `'["', '`+field.Sep+`'`, "", `'","', '`+field.Sep+`'`, "",
		`'"]', '`+field.Sep+`'`, "",
		// the fixed literals of person and lookup references (field/refs.go)
		`(',' || `, "(", ` || ',')`, ")", `'["' || replace(`, "(", `, ',', '","') || '"]'`, ")", `'u:' || `, "", `'g:' || `, "").Replace(sql)
	if strings.Contains(rest, "'") || !safeSQL.MatchString(rest) {
		t.Fatalf("generated SQL carries request text: %q", sql)
	}
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		`{"logic":"and","conditions":[{"column":"text","operator":"contains","value":"x'; DROP TABLE t; --"}]}`,
		`{"logic":"or","conditions":[{"column":"number","op":"in","value":[1,2,"3"]},{"column":"date","operator":"gte","value":"[Сегодня]-3"}]}`,
		`{"conditions":[{"column":"person","operator":"eq","value":"[Я]"},{"column":"choice","operator":"startsWith","value":"%_"}]}`,
		`{"conditions":[{"column":"datetime","operator":"lt","value":"2026-01-01T10:00:00Z"},{"column":"__created_at","operator":"eq","value":"[Сегодня]"}]}`,
		`{"conditions":[{"column":"lookup","operator":"in","value":"1,2"},{"column":"boolean","operator":"ne","value":true},{"column":"link","operator":"isEmpty"}]}`,
		`{"conditions":[{"column":"f_1; drop","operator":"eq","value":1}]}`,
		`[]`, `null`, `{"logic":1}`, `{"conditions":[{"column":"text","operator":"in","value":[]}]}`,
	} {
		f.Add(s)
	}
	resolve := testResolver()
	f.Fuzz(func(t *testing.T, raw string) {
		flt, err := ParseFilter("filter", raw)
		if err != nil {
			return
		}
		sql, args, err := flt.SQL("filter", resolve, field.Operand{UserID: "u", Today: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			return
		}
		checkSQL(t, sql)
		if n := strings.Count(strings.ReplaceAll(sql, `ESCAPE '\'`, ""), "?"); n != len(args) {
			t.Fatalf("%d placeholders, %d args: %q", n, len(args), sql)
		}
	})
}

func FuzzSort(f *testing.F) {
	for _, s := range []string{"title:asc,number:desc", `[{"column":"date","direction":"desc"}]`, `{"column":"x"}`, "a:b:c", ",,,", "text:DESC", "item_number", `[{"column":"__created_at"}]`} {
		f.Add(s)
	}
	resolve := testResolver()
	f.Fuzz(func(t *testing.T, raw string) {
		keys, err := ParseSort("sort", raw)
		if err != nil {
			return
		}
		sql, err := OrderBy("sort", keys, resolve)
		if err != nil {
			return
		}
		checkSQL(t, sql)
	})
}

func TestParseFilterRefusesUnknownShapes(t *testing.T) {
	for _, c := range []struct {
		raw string
		ok  bool
	}{
		{`{"logic":"and","conditions":[{"column":"text","op":"eq","value":"x"}]}`, true},
		{`{}`, true},
		{`null`, false},
		{`{"and":[{"field":"title","op":"bogus","value":"x"}]}`, false},
		{`{"logic":"and","conditions":[],"extra":1}`, false},
		{`{"conditions":[{"column":"text","operator":"eq","value":"x","field":"y"}]}`, false},
		{`{"conditions":[]} {"conditions":[]}`, false},
	} {
		_, err := ParseFilter("filter", c.raw)
		if (err == nil) != c.ok {
			t.Errorf("%s: err=%v, want ok=%v", c.raw, err, c.ok)
		}
	}
}

func TestParseSortForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"number:desc,text", "(f_5 IS NULL) ASC, f_5 DESC, (cp_lower(f_1) IS NULL) ASC, cp_lower(f_1) ASC, id DESC"},
		{`[{"column":"date","direction":"asc"}]`, "(f_6 IS NULL) ASC, f_6 ASC, id DESC"},
		{"item_number:asc", "(id IS NULL) ASC, id ASC"},
	} {
		keys, err := ParseSort("sort", c.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := OrderBy("sort", keys, testResolver())
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v", c.in, got, err)
		}
	}
	for _, bad := range []string{"text:up", `[{"column":""}]`, `[{`, strings.Repeat("a,", 20), `[{"column":"text","dir":"desc"}]`, `[{"column":"text"}] x`} {
		if _, err := ParseSort("sort", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
