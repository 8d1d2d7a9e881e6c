package export

import "testing"

func TestNeutralise(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx",
		"plain": "plain", "": "", "a=b": "a=b", `=HYPERLINK("http://x","y")`: `'=HYPERLINK("http://x","y")`} {
		if got := Neutralise(in); got != want {
			t.Fatalf("Neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}
