package search

import (
	"strings"
	"testing"
)

// show prints a parsed tsquery back in a compact form.
func show(n *tsNode) string {
	switch n.op {
	case tsLexeme:
		if n.prefix {
			return n.lexeme + "*"
		}
		return n.lexeme
	default:
		parts := make([]string, len(n.args))
		for i, a := range n.args {
			parts[i] = show(a)
		}
		sep := "&"
		if n.op == tsOr {
			sep = "|"
		}
		return "(" + strings.Join(parts, sep) + ")"
	}
}

func TestParseTSQuery(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`'договор'`, "договор", true},
		{`'договор' & 'отчет'`, "(договор&отчет)", true},
		{`( 'договор' | 'dogovor' ) & 'отчет'`, "((договор|dogovor)&отчет)", true},
		{`'contr':* & '^plan'`, "(contr*&^plan)", true},
		{`'a' | 'b' & 'c'`, "(a|(b&c))", true},
		{`'it''s'`, "it's", true},
		{`'a\\b'`, `a\b`, true},
		{``, "", false},
		{`'a' <-> 'b'`, "", false},
		{`'a' <2> 'b'`, "", false},
		{`( 'a' & 'b' ) <-> 'c'`, "", false},
		{`!'a'`, "", false},
		{`'a' & !'b'`, "", false},
		{`'a':A`, "", false},
		{`'a':*AB`, "", false},
		{`'a`, "", false},
		{`( 'a' & 'b'`, "", false},
		{`'a' 'b'`, "", false},
	} {
		n, ok := parseTSQuery(c.in)
		if ok != c.ok || (ok && show(n) != c.want) {
			got := ""
			if n != nil {
				got = show(n)
			}
			t.Errorf("%q: %q %v, want %q %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
