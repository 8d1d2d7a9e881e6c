package store

import (
	"database/sql/driver"
	"fmt"
	"strings"

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
}
