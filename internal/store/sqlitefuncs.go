package store

import (
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"modernc.org/sqlite"
)

// cp_lower(text) is the case folding of lists (strings.ToLower: Unicode,
// Cyrillic included, ё kept apart from е) available in SQL on every SQLite
// connection, so that case-insensitive matching can fold stored values in
// the query instead of keeping lower-cased copies. It is deterministic, so
// expression indexes may use it. PostgreSQL has the same function (migration
// 1101: lower() of a UTF-8 database).
func init() {
	err := sqlite.RegisterDeterministicScalarFunction("cp_lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch x := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return strings.ToLower(x), nil
		case []byte:
			return strings.ToLower(string(x)), nil
		default:
			return strings.ToLower(fmt.Sprint(x)), nil
		}
	})
	if err != nil {
		panic("register cp_lower: " + err.Error())
	}
	// uuid_blob(text) and uuid_text(blob) convert between the 36-character
	// form of a UUID and the 16 bytes that item tables store (lists: guid,
	// created_by, updated_by), so that SQL can join them to TEXT ids (users).
	// Anything else gives NULL.
	err = sqlite.RegisterDeterministicScalarFunction("uuid_blob", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var s string
		switch x := args[0].(type) {
		case string:
			s = x
		case []byte:
			if len(x) == 16 {
				return x, nil
			}
			s = string(x)
		default:
			return nil, nil
		}
		u, err := uuid.Parse(s)
		if err != nil {
			return nil, nil
		}
		return u[:], nil
	})
	if err != nil {
		panic("register uuid_blob: " + err.Error())
	}
	err = sqlite.RegisterDeterministicScalarFunction("uuid_text", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch x := args[0].(type) {
		case []byte:
			if u, err := uuid.FromBytes(x); err == nil {
				return u.String(), nil
			}
		case string:
			return x, nil
		}
		return nil, nil
	})
	if err != nil {
		panic("register uuid_text: " + err.Error())
	}
}
