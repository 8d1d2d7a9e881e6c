package store

import (
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
)

// CanonicalUUID accepts only the 36-character 8-4-4-4-12 form (any case) and
// returns it lower-cased. uuid.Parse alone also accepts urn:uuid:, braces and
// 32 hex digits, which PostgreSQL's uuid type or our TEXT columns would then
// treat differently.
func CanonicalUUID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// IsInvalidInput reports a PostgreSQL data exception (SQLSTATE class 22:
// bad uuid text, numeric overflow, NUL in text, …): the value, not the
// server, is at fault. Edge validation should catch these first; this is the
// safety net that keeps them from becoming 500s.
func IsInvalidInput(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && strings.HasPrefix(pg.Code, "22")
}
