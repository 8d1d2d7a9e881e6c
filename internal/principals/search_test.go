package principals

import (
	"testing"

	"coreportal/internal/fault"
)

func TestParseSearch(t *testing.T) {
	cases := []struct {
		q, types     string
		limit        int
		field        string // "" when valid
		users, group bool
		wantLimit    int
	}{
		{"ab", "", 0, "", true, true, SearchDefaultLimit},
		{"  ab  ", "user", 5, "", true, false, 5},
		{"ab", "group", 20, "", false, true, 20},
		{"ab", "user, group", 1, "", true, true, 1},
		{"", "", 0, "q", false, false, 0},
		{" a ", "", 0, "q", false, false, 0},
		{"ab", "role", 0, "types", false, false, 0},
		{"ab", "", 21, "limit", false, false, 0},
		{"ab", "", -1, "limit", false, false, 0},
	}
	for _, c := range cases {
		got, err := ParseSearch(c.q, c.types, c.limit)
		if c.field != "" {
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != c.field {
				t.Errorf("%q %q %d: err %v, want validation of %s", c.q, c.types, c.limit, err, c.field)
			}
			continue
		}
		if err != nil || got.Users != c.users || got.Group != c.group || got.Limit != c.wantLimit {
			t.Errorf("%q %q %d: %+v %v", c.q, c.types, c.limit, got, err)
		}
	}
}
