package vendorkey

import "testing"

func TestParse(t *testing.T) {
	for _, good := range []string{"", Builtin, "QZ9isJabet_7x0jMjuwbYKqPdCcvtDTJBkT8zt_uVhY", " " + Builtin + "\n"} {
		if _, err := Parse(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	for _, bad := range []string{"abc", "QZ9isJabet/7x0jMjuwbYKqPdCcvtDTJBkT8zt", "!!!!"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
