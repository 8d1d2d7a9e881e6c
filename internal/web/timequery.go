package web

import (
	"time"

	"coreportal/internal/fault"
)

// ParseTime reads an optional time query value (RFC 3339, or YYYY-MM-DD for
// midnight UTC); a bad one is a 400 naming field.
func ParseTime(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fault.Validation(field, "%s must be an RFC 3339 time such as 2026-01-31T12:00:00Z", field)
}
