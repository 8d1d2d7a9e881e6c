package field

import (
	"encoding/json"
	"strconv"
	"strings"

	"coreportal/internal/store"
)

// Person and lookup values are stored compactly: the value column
// holds only references, never display text, and has no lower-cased copy.
//
//   - person: the subjects as "u:<uuid>" (user) or "g:<uuid>" (group), joined
//     by ",", e.g. "u:3f2c…,g:9a01…" (38 bytes a subject, 39 from the second):
//     fixed-width entries, so the first one is substr(col, 3, 36), and an id
//     occurs in the text only as a whole entry (eq/in/[Я] are LIKE '%<uuid>%').
//   - lookup: the target item numbers in decimal joined by ",", e.g. "12,40";
//     eq/in compare whole entries of ','||col||','.
//
// Displays are resolved at read time by the owner of the table (lists,
// libraries) from the principal name cache and the lookup targets. Text
// operators (contains, startsWith) and sorting reach the displays in SQL
// through Def.Displays: a non-correlated subquery lists the subjects or target
// items whose display matches, and the row matches when one of its entries is
// among them; sorting orders by the display of the first entry (a correlated
// subquery on the key of the users, groups or target table).

// Displays tells a field's filters and sorts how to reach display text in
// SQL. The owner of the table sets it on the person and lookup definitions it
// loads; without it text operators and sorting use the stored references.
type Displays struct {
	Dialect store.Dialect
	// Table is the item table the field's column belongs to: correlated
	// subqueries (sorting) name the column with it, since a lookup target
	// (even the same table) may have a column of that name.
	Table string
	// Target is the SQL of a lookup field's target (ok false: unknown, e.g. deleted).
	Target func(f *Def) (LookupTarget, bool)
}

// LookupTarget is a lookup target in SQL. Every part is built by the server
// from validated ids, never from request text.
type LookupTarget struct {
	Table string // table of the target items
	Key   string // column holding the item number
	// Where limits Table (alias lk) to the target and to the rows the caller
	// may view ("" = none); a hidden row matches no text operator and sorts
	// as an empty display.
	Where   string
	Display string // sort expression of the display (folded text or a typed column)
	Text    string // lower-cased display text for contains/startsWith
	// Textual: Display is text, so a vanished target item (or an empty
	// display) orders as '' on both databases; typed displays order as NULL.
	Textual bool
}

func (t LookupTarget) where() string {
	if t.Where == "" {
		return ""
	}
	return t.Where + " AND "
}

func (d *Displays) postgres() bool { return d != nil && d.Dialect == store.Postgres }

// subjectEntry is the stored form of one subject.
func subjectEntry(s Subject) string {
	if s.PrincipalType == "group" {
		return "g:" + s.ID
	}
	return "u:" + s.ID
}

// parseSubjects reads the stored form of a person value: the compact entries,
// or the JSON array of subjects of tables not yet migrated.
func parseSubjects(s string) []Subject {
	return parseRefs(s, func(v *Subject) { v.Display = "" }, func(p string) (Subject, bool) {
		typ, id, ok := strings.Cut(p, ":")
		if !ok || id == "" {
			return Subject{}, false
		}
		t := "user"
		if typ == "g" {
			t = "group"
		}
		return Subject{PrincipalType: t, ID: id}, true
	})
}

// parseRefs reads a stored reference list: comma-separated entries (entry
// parses one, false skips it), or the JSON array of a table not yet migrated,
// whose stored displays are dropped (blank clears one): displays come from
// the targets at read time.
func parseRefs[T any](s string, blank func(*T), entry func(string) (T, bool)) []T {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "[") {
		var list []T
		if json.Unmarshal([]byte(s), &list) != nil {
			return nil
		}
		for i := range list {
			blank(&list[i])
		}
		return list
	}
	parts := strings.Split(s, ",")
	out := make([]T, 0, len(parts))
	for _, p := range parts {
		if v, ok := entry(p); ok {
			out = append(out, v)
		}
	}
	return out
}

// CompactSubjects is the stored form of person entries ("" when none).
func CompactSubjects(list []Subject) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = subjectEntry(s)
	}
	return strings.Join(parts, ",")
}

// parseLookups reads the stored form of a lookup value: the item numbers, or
// the JSON array of {itemId, display} of tables not yet migrated.
func parseLookups(s string) []LookupValue {
	return parseRefs(s, func(v *LookupValue) { v.Display = "" }, func(p string) (LookupValue, bool) {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		return LookupValue{ItemID: n}, err == nil
	})
}

// CompactLookups is the stored form of lookup entries ("" when none).
func CompactLookups(list []LookupValue) string {
	parts := make([]string, len(list))
	for i, l := range list {
		parts[i] = strconv.FormatInt(l.ItemID, 10)
	}
	return strings.Join(parts, ",")
}

// CompactValue is the stored text of a person or lookup value in any shape
// (API value, stored text, the JSON of either); ok false for other types.
func CompactValue(f *Def, v any) (string, bool) {
	if s, isStr := v.(string); isStr {
		v = DecodeStored(f, s)
	}
	switch f.Type {
	case Person:
		return CompactSubjects(Subjects(v)), true
	case Lookup:
		return CompactLookups(Lookups(v)), true
	}
	return "", false
}

// DecodeStored turns stored person or lookup text into its API shape (without
// displays); other types are returned unchanged.
func DecodeStored(f *Def, s string) any {
	switch f.Type {
	case Person, Lookup:
		return MustOf(f).Decode(f, s)
	}
	return s
}

// anyOf is the condition "one entry of the stored list is among the keys the
// subquery sub returns" on both databases: SQLite walks the entries with
// json_each, PostgreSQL compares arrays; sub is not correlated, so each
// database evaluates it once per statement.
func anyOf(d *Displays, list, sub string, numbers bool) string {
	if d.postgres() {
		arr := "string_to_array(" + list + ", ',')"
		if numbers {
			arr = "CAST(" + arr + " AS bigint[])"
		}
		return arr + " && ARRAY(" + sub + ")"
	}
	js := `'["' || replace(` + list + `, ',', '","') || '"]'`
	if numbers {
		js = `'[' || ` + list + ` || ']'`
	}
	return "EXISTS (SELECT 1 FROM json_each(" + js + ") WHERE value IN (" + sub + "))"
}

// outerColumn is f's column as a correlated subquery must name it.
func outerColumn(f *Def) string {
	if f.Displays != nil && f.Displays.Table != "" {
		return f.Displays.Table + "." + f.Column()
	}
	return f.Column()
}
