package web

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"coreportal/internal/fault"
)

// Text that reaches the database must be valid UTF-8 without NUL: SQLite
// compares a NUL-cut string differently from PostgreSQL, which refuses NUL
// in text outright, and Go's decoders silently turn invalid bytes (overlong
// forms, surrogates, stray continuation bytes) into U+FFFD. Sanitize checks
// the path, the query and JSON bodies of every request; handlers that read
// multipart bodies check names and form values with CheckText.

// CheckText refuses NUL and invalid UTF-8 (overlong encodings and UTF-16
// surrogates included) in one text value with 400 VALIDATION_ERROR.
func CheckText(field, s string) error {
	if msg := badText(s); msg != "" {
		return fault.Validation(field, "%s", textMessage(field, msg))
	}
	return nil
}

func textMessage(field, msg string) string {
	if field == "" {
		return "the request contains " + msg
	}
	return field + " contains " + msg
}

func badText(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "a NUL character, which is not allowed"
	}
	if !utf8.ValidString(s) {
		return "bytes that are not valid UTF-8"
	}
	return ""
}

// checkRequestText checks the path and every query parameter name and value.
func checkRequestText(r *http.Request) error {
	if msg := badText(r.URL.Path); msg != "" {
		return fault.Validation("", "%s", "the path contains "+msg)
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return fault.Validation("", "the query string is malformed: %s", err.Error())
	}
	for key, vals := range q {
		if msg := badText(key); msg != "" {
			return fault.Validation("", "%s", "a query parameter name contains "+msg)
		}
		for _, v := range vals {
			// badJSONText: filter and sort parameters carry JSON, whose
			// \u0000 and lone surrogate escapes decode to bad text too.
			if msg := badJSONText([]byte(v)); msg != "" {
				return fault.Validation(key, "%s", "query parameter "+key+" contains "+msg)
			}
		}
	}
	return nil
}

// CheckJSONText refuses a JSON document whose strings would decode to text
// that is not valid (see badJSONText) with 400 VALIDATION_ERROR, for JSON
// that arrives other than as a request body (files inside uploads).
func CheckJSONText(field string, b []byte) error {
	if msg := badJSONText(b); msg != "" {
		return fault.Validation(field, "%s", textMessage(field, msg))
	}
	return nil
}

// badJSONText finds text a JSON decoder would accept but that is not valid
// text: invalid UTF-8 bytes, a raw NUL, a \u0000 escape, or a \u escape of a
// lone UTF-16 surrogate (decoded as U+FFFD by encoding/json).
func badJSONText(b []byte) string {
	if bytes.IndexByte(b, 0) >= 0 {
		return "a NUL character, which is not allowed"
	}
	if !utf8.Valid(b) {
		return "bytes that are not valid UTF-8"
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // \\, \", \n, …: skip the escaped character
			continue
		}
		v, ok := hex4(b, i+2)
		if !ok {
			continue // malformed: the JSON decoder refuses it
		}
		switch {
		case v == 0:
			return "a NUL character (\\u0000), which is not allowed"
		case v >= 0xDC00 && v <= 0xDFFF:
			return "a lone UTF-16 surrogate escape, which is not valid text"
		case v >= 0xD800 && v <= 0xDBFF:
			lo, ok := -1, false
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				lo, ok = hex4(b, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return "a lone UTF-16 surrogate escape, which is not valid text"
			}
			i += 11
			continue
		}
		i += 5
	}
	return ""
}

func hex4(b []byte, at int) (int, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
