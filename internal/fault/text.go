package fault

import (
	"strings"
	"unicode/utf8"
)

// RequiredText trims v and checks that it is not empty and has at most max
// characters (titles, names).
func RequiredText(field, v string, max int) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", Validation(field, "%s is required", field)
	}
	if utf8.RuneCountInString(v) > max {
		return "", Validation(field, "%s must have at most %d characters", field, max)
	}
	return v, nil
}

// MaxText checks that v has at most max characters (descriptions).
func MaxText(field, v string, max int) error {
	if utf8.RuneCountInString(v) > max {
		return Validation(field, "%s must have at most %d characters", field, max)
	}
	return nil
}
