// Package field is the registry of field types shared by lists, libraries and
// surveys: one small file per type that knows how to validate and normalise a value,
// which SQL columns hold it and how a filter condition on it is expressed in SQL.
//
// Storage layout (one table per list, see ARCHITECTURE.md): a field with
// column number n owns the value column f_n and, for types that need them,
// one shadow column: for html_text and link only, f_n_ci (the lower-cased
// text that their filters compare: plain text of HTML, the URL). Person and
// lookup values are compact references without display text (refs.go) and
// have no key-list column f_n_k (the item-table migration of lists removes
// one where it exists). Text, multi-line text and choice values have no stored copy:
// they are compared through Fold (cp_lower), in conditions and in expression
// indexes, identically on SQLite and PostgreSQL.
package field

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"coreportal/internal/store"
)

// Field types of SPEC.md.
const (
	Text          = "text"
	MultilineText = "multiline_text"
	HTMLText      = "html_text"
	Choice        = "choice"
	Number        = "number"
	Date          = "date"
	DateTime      = "datetime"
	Boolean       = "boolean"
	Lookup        = "lookup"
	Person        = "person"
	Link          = "link"
)

// Sep frames the entries of shadow columns of multi-valued types.
const Sep = "\x1f"

// Def is one field of a list.
type Def struct {
	ID           string
	ListID       string
	InternalName string
	Title        string
	Type         string
	Required     bool
	SortOrder    int
	Settings     FieldSettings
	Col          int // column number: f_<Col>; 0 = the item number (column id)
	System       bool
	// ColName overrides the column name (meta columns such as created_at).
	ColName string
	// Displays reaches person and lookup displays in SQL (refs.go); set by
	// the owner of the table, nil elsewhere.
	Displays *Displays
	// Kind, when set, overrides the kind of Type: a field whose value is
	// composed from the row's own columns instead of stored in f_n (lists:
	// the created_by system field and the __created_at/__updated_at meta
	// columns). Such a field keeps Type for the API.
	Kind Kind
}

// FieldSettings holds the per-type settings; only the keys of the field's type are kept.
type FieldSettings struct {
	Choices         []string `json:"choices,omitempty"`
	AllowMultiple   *bool    `json:"allowMultiple,omitempty"`
	AllowUsers      *bool    `json:"allowUsers,omitempty"`
	AllowGroups     *bool    `json:"allowGroups,omitempty"`
	LookupListID    string   `json:"lookupListId,omitempty"`
	LookupLibraryID string   `json:"lookupLibraryId,omitempty"`
	LookupNodeID    string   `json:"lookupNodeId,omitempty"`
	LookupFieldID   string   `json:"lookupFieldId,omitempty"`
}

// Multiple reports allowMultiple with the type's default.
func (s FieldSettings) Multiple(def bool) bool {
	if s.AllowMultiple == nil {
		return def
	}
	return *s.AllowMultiple
}

func flag(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Column is the SQL name of a field's value column.
func (f *Def) Column() string {
	if f.ColName != "" {
		return f.ColName
	}
	if f.Col == 0 {
		return "id"
	}
	return fmt.Sprintf("f_%d", f.Col)
}

// CI is the lower-cased shadow column.
func (f *Def) CI() string { return f.Column() + "_ci" }

// Fold is the case-insensitive form of a column in SQL: cp_lower, Go's
// strings.ToLower registered on every SQLite connection and lower() on
// PostgreSQL (migrations 1101, 1120), so that Cyrillic folds identically.
// Filters and sorting use it, and indexes are built on the same expression.
func Fold(col string) string { return "cp_lower(" + col + ")" }

// Unfold returns the column of a Fold expression (ok false for anything else).
func Unfold(expr string) (col string, ok bool) {
	col, ok = strings.CutPrefix(expr, "cp_lower(")
	if !ok || !strings.HasSuffix(col, ")") {
		return "", false
	}
	return strings.TrimSuffix(col, ")"), true
}

// Keys is the name of a key-list column f_n_k, which no field type declares:
// the item-table migration of lists removes it where it exists.
func (f *Def) Keys() string { return f.Column() + "_k" }

// Env answers the lookups that validation needs (subjects, lookup targets).
type Env interface {
	// Subject returns the display name of a user or group, NotFound when it does not exist.
	Subject(ctx context.Context, principalType, id string) (display string, err error)
	// LookupItem returns the display of item number id of the field's target, NotFound when absent.
	LookupItem(ctx context.Context, f *Def, id int64) (display string, err error)
}

// Cells are column values to write: column name -> value.
type Cells map[string]any

// Kind is one field type.
type Kind interface {
	// Columns lists the column definitions (name, SQL type) of field f.
	Columns(d store.Dialect, f *Def) [][2]string
	// CheckSettings validates and normalises settings (on create and update).
	CheckSettings(s FieldSettings, creating bool) (FieldSettings, error)
	// Normalize validates a request value; nil means empty.
	Normalize(ctx context.Context, f *Def, raw json.RawMessage, env Env) (any, error)
	// Cells turns a normalised value (nil = empty) into the column values.
	Cells(f *Def, v any) Cells
	// Decode turns the scanned value column into the API value (nil = empty).
	Decode(f *Def, raw any) any
	// Search is the text that `q` matches (lower-cased by the caller).
	Search(f *Def, v any) string
	// Filter builds the SQL condition of one filter operation.
	Filter(f *Def, op string, v Operand) (string, []any, error)
	// SortExpr is the SQL expression to order by.
	SortExpr(f *Def) string
}

var registry = map[string]Kind{}

func register(name string, k Kind) { registry[name] = k }

// Of returns the kind of a field type.
func Of(typ string) (Kind, bool) {
	k, ok := registry[typ]
	return k, ok
}

// Types lists the registered type names.
func Types() []string {
	return []string{Text, MultilineText, HTMLText, Choice, Number, Date, DateTime, Boolean, Lookup, Person, Link}
}

// MustOf returns the kind of f (the type was validated when f was stored).
func MustOf(f *Def) Kind {
	if f.Kind != nil {
		return f.Kind
	}
	k, ok := registry[f.Type]
	if !ok {
		panic("field type not registered: " + f.Type)
	}
	return k
}

// Lower is the case folding used for every shadow column and search value.
func Lower(s string) string { return strings.ToLower(s) }

// Error is a validation failure of one field value.
type Error struct {
	FieldID string
	Message string
}

func (e *Error) Error() string { return e.Message }

func invalid(f *Def, format string, args ...any) error {
	return &Error{FieldID: f.ID, Message: fmt.Sprintf("%s: ", f.Title) + fmt.Sprintf(format, args...)}
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}
