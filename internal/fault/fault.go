// Package fault is the project's error vocabulary: a handful of typed codes
// that services return and that the web layer maps to HTTP in one place.
package fault

import (
	"errors"
	"fmt"
)

// Code is a stable, client-visible error code (CONTRACT.md, "Envelope and errors").
type Code string

const (
	CodeValidation   Code = "VALIDATION_ERROR"
	CodeUnauthorized Code = "UNAUTHORIZED"
	CodeForbidden    Code = "FORBIDDEN"
	CodeNotFound     Code = "NOT_FOUND"
	CodeConflict     Code = "CONFLICT"
	CodeTooLarge     Code = "PAYLOAD_TOO_LARGE"
	CodeReadOnly     Code = "LICENSE_READ_ONLY"
	CodeFileLocked   Code = "FILE_LOCKED"
	CodeRateLimited  Code = "RATE_LIMITED"
	CodeUnavailable  Code = "UNAVAILABLE"
	CodeUpdateBlock  Code = "UPDATE_BLOCKED"
	CodeInternal     Code = "INTERNAL"
)

// Error is a domain error that is safe to show to the caller.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// With returns a copy of e with one more detail.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// New builds an error of the given code.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Validation names the offending field in details.field.
func Validation(field, format string, args ...any) *Error {
	e := New(CodeValidation, format, args...)
	if field != "" {
		e.Details = map[string]any{"field": field}
	}
	return e
}

func NotFound(what string) *Error { return New(CodeNotFound, "%s not found", what) }

func Forbidden(format string, args ...any) *Error { return New(CodeForbidden, format, args...) }

func Conflict(format string, args ...any) *Error { return New(CodeConflict, format, args...) }

func Unauthorized(format string, args ...any) *Error { return New(CodeUnauthorized, format, args...) }

func Unavailable(format string, args ...any) *Error { return New(CodeUnavailable, format, args...) }

// As extracts a domain error from err's chain.
func As(err error) (*Error, bool) {
	var fe *Error
	if errors.As(err, &fe) {
		return fe, true
	}
	return nil, false
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	fe, ok := As(err)
	return ok && fe.Code == code
}
