package acl

import (
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// CanonicalUUID is store.CanonicalUUID (kept here for the acl callers).
func CanonicalUUID(s string) (string, bool) { return store.CanonicalUUID(s) }

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
