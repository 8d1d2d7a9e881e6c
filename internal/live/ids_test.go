package live

import (
	"strings"
	"testing"
)

func TestParseIDs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"1,2,3", 3, true}, {" 4 , 5 ", 2, true}, {"7,7,7", 1, true},
		{"", 0, false}, {"a", 0, false}, {"0", 0, false}, {"-3", 0, false}, {"1,,2", 0, false},
		{strings.Repeat("1,", 100) + "1", 0, false}, {strings.TrimSuffix(strings.Repeat("9,", 100), ","), 1, true},
	} {
		ids, err := ParseIDs(tc.in)
		if (err == nil) != tc.ok || len(ids) != tc.want {
			t.Errorf("ParseIDs(%q) = %v, %v", tc.in, ids, err)
		}
	}
}
