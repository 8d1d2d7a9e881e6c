package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
)

// DecodeError is a JSON document that could not be decoded, described in the
// caller's terms: where (the property path) and what is wrong, never the Go
// types the server decodes into.
type DecodeError struct {
	Path    string // property path such as a.b[2]; empty for the whole document
	Message string // what is wrong, without the path
	Err     error  // the decoder's own error, for logs
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

func (e *DecodeError) Unwrap() error { return e.Err }

// DecodeJSON is json.Unmarshal whose errors are DecodeErrors.
func DecodeJSON(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return DescribeJSON(data, err)
	}
	return nil
}

// DescribeJSON turns an error of encoding/json about data into a
// DecodeError; other errors (a fault raised by a value's own decoding) are
// returned unchanged.
func DescribeJSON(data []byte, err error) error {
	var de *DecodeError
	if err == nil || errors.As(err, &de) {
		return err
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(syn.Error(), "unexpected end") {
			return &DecodeError{Message: incomplete, Err: err}
		}
		return &DecodeError{Message: fmt.Sprintf("malformed JSON at byte %d (%s)", syn.Offset, syn.Error()), Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &DecodeError{Message: incomplete, Err: err}
	case errors.As(err, &typ):
		path := typ.Field
		if num, ok := strings.CutPrefix(typ.Value, "number "); ok {
			// the decoder names a map or interface value only by its
			// container: find the number itself
			if p, found := numberPath(data, num); found && strings.HasPrefix(p, path) {
				path = p
			}
		}
		return &DecodeError{Path: path, Message: typeMessage(typ), Err: err}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &DecodeError{Path: strings.Trim(name, `"`), Message: "unexpected property", Err: err}
	}
	return &DecodeError{Message: "malformed JSON (" + strings.TrimPrefix(msg, "json: ") + ")", Err: err}
}

const incomplete = "malformed JSON, the document ends before it is complete"

// typeMessage says what a value should have been.
func typeMessage(e *json.UnmarshalTypeError) string {
	want := jsonKind(e.Type)
	num, isNum := strings.CutPrefix(e.Value, "number ")
	if !isNum {
		return fmt.Sprintf("expected %s, got %s", want, article(e.Value))
	}
	if e.Type != nil {
		switch e.Type.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Interface:
			return fmt.Sprintf("number %s is out of range", num)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if f, ok := new(big.Float).SetString(num); ok && f.IsInt() {
				return fmt.Sprintf("number %s is out of range", num)
			}
			return fmt.Sprintf("expected an integer, got %s", num)
		}
	}
	return fmt.Sprintf("expected %s, got a number", want)
}

func article(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "bool":
		return "true or false"
	case "":
		return "another value"
	}
	return "a " + v
}

// jsonKind names the JSON type a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// numberPath returns the property path ("a.b[2]") of the first number
// written as literal in data, reading the document token by token; numbers
// stay text, so an out-of-range number does not stop the walk.
func numberPath(data []byte, literal string) (string, bool) {
	type level struct {
		object bool
		key    string
		index  int
		expKey bool // object: the next string token is a key
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []level
	render := func() string {
		var b strings.Builder
		for _, l := range stack {
			if l.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			} else {
				b.WriteString("[" + strconv.Itoa(l.index) + "]")
			}
		}
		return b.String()
	}
	// value records that a value ended in the innermost container.
	value := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].expKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if n, ok := tok.(json.Number); ok && string(n) == literal {
			return render(), true
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, level{object: true, expKey: true})
			case '[':
				stack = append(stack, level{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expKey {
				stack[n-1].key, stack[n-1].expKey = t, false
				continue
			}
			value()
		default:
			value()
		}
	}
}

// jsonFormat is Huma's JSON format whose decoding errors are DecodeErrors.
var jsonFormat = huma.Format{
	Marshal:   huma.DefaultJSONFormat.Marshal,
	Unmarshal: DecodeJSON,
}

// formats are the request and response formats of the API.
func formats() map[string]huma.Format {
	out := make(map[string]huma.Format, len(huma.DefaultFormats))
	for k, v := range huma.DefaultFormats {
		out[k] = v
	}
	out["application/json"] = jsonFormat
	out["json"] = jsonFormat
	return out
}
