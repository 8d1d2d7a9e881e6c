package acl

import (
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/fault"
)

// CanonicalUUID returns s in the canonical lower-case 8-4-4-4-12 form. Only
// that spelling (any case) is accepted: the urn:uuid:, {braced} and 32-hex
// forms that uuid.Parse and Huma's format "uuid" let through are refused, so
// that ids from request bodies compare equal to the lower-case ids stored in
// TEXT columns and never reach PostgreSQL's uuid parser in an odd form.
// (Same behaviour as the foundation's store.CanonicalUUID; callers switch to
// it once it is merged.)
func CanonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return strings.ToLower(u.String()), true
}

// CanonicalField canonicalises an id taken from a request body: "" stays ""
// (an absent optional id), anything else not a UUID is a 400 on field.
func CanonicalField(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	id, ok := CanonicalUUID(s)
	if !ok {
		return "", fault.Validation(field, "%s must be a UUID in the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", field)
	}
	return id, nil
}
