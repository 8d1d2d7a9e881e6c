package store

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned when a single-row lookup finds nothing.
var ErrNotFound = sql.ErrNoRows

// ErrUnique marks a unique-constraint violation.
var ErrUnique = errors.New("unique constraint violated")

// ErrForeignKey marks a foreign-key violation.
var ErrForeignKey = errors.New("foreign key violated")

type constraintError struct {
	kind  error
	cause error
}

func (e *constraintError) Error() string   { return e.kind.Error() + ": " + e.cause.Error() }
func (e *constraintError) Unwrap() []error { return []error{e.kind, e.cause} }

// translate maps driver errors to the store's sentinels by code, never by text.
func translate(_ Dialect, err error) error {
	if err == nil {
		return nil
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505":
			return &constraintError{ErrUnique, err}
		case "23503":
			return &constraintError{ErrForeignKey, err}
		}
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &constraintError{ErrUnique, err}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return &constraintError{ErrForeignKey, err}
		}
	}
	return err
}

// Translate is translate for callers outside the package.
func (db *DB) Translate(err error) error { return translate(db.Dialect, err) }

// IsUnique reports whether err is a unique-constraint violation.
func IsUnique(err error) bool { return errors.Is(translate(0, err), ErrUnique) }

// IsNotFound reports whether err is sql.ErrNoRows.
func IsNotFound(err error) bool { return errors.Is(err, sql.ErrNoRows) }
