package jobs

import (
	"strings"

	"github.com/google/uuid"
)

// canonicalUUID returns s as a canonical UUID (lower-case 8-4-4-4-12, the
// form our ids are stored and compared in) and whether s is one. Only the
// 36-character form is accepted, in any case: uuid.Parse also takes
// urn:uuid:, {braces} and 32 bare hex digits, which PostgreSQL's uuid type
// refuses (a 500) and TEXT columns never match. Same behaviour as
// store.CanonicalUUID, which is not on this branch yet.
func canonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return strings.ToLower(u.String()), true
}
