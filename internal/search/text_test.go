package search

import (
	"reflect"
	"testing"
)

func TestParseQueryAndMatch(t *testing.T) {
	for _, tc := range []struct {
		q     string
		match string
	}{
		{"договоры", `"договор"`},
		{"Contracts", `"contract"`},
		{"Ёлки", `"елк"`},
		{`"signed by the director" contr*`, `"sign by the director" AND "contr"*`},
		{`  "одно"  `, `"одн"`},
		{`a-b`, `"a" AND "b"`},
		{`") OR title:*`, `"or titl"`}, // an unterminated quote runs to the end
		{`x) OR title:*`, `"x" AND "or" AND "titl"`},
	} {
		if got := ftsMatch(parseQuery(tc.q)); got != tc.match {
			t.Errorf("%q: match %q, want %q", tc.q, got, tc.match)
		}
	}
	for _, q := range []string{"", "  ", `"" * --`} {
		if terms := parseQuery(q); len(terms) != 0 {
			t.Errorf("%q: terms %v, want none", q, terms)
		}
	}
}

func TestSnippetHighlights(t *testing.T) {
	m := newMatcher(parseQuery("договоры contr*"))
	for _, tc := range []struct{ text, want string }{
		{"Договор поставки <b>", "<mark>Договор</mark> поставки &lt;b&gt;"},
		{"the Contractor signs", "the <mark>Contractor</mark> signs"},
		{"nothing here", "nothing here"},
	} {
		if got := snippet(tc.text, m); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestTokensAndPlainText(t *testing.T) {
	if got := tokens("Договоры, contracts; ЁЖ"); got != "договор contract еж" {
		t.Errorf("tokens %q", got)
	}
	if got := PlainText("<p>Hello&amp;<b>world</b></p><script>x</script>"); !reflect.DeepEqual(got, "Hello& world") {
		t.Errorf("plain %q", got)
	}
}
