package lists

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/field"
	"coreportal/internal/store"
)

// System columns of item tables (compact rows): guid, created_by and
// updated_by are native uuid on PostgreSQL and 16-byte BLOBs on SQLite;
// created_at and updated_at are Unix milliseconds UTC (BIGINT on PostgreSQL,
// INTEGER on SQLite). PostgreSQL keeps bigint rather than timestamptz: the
// same 8 bytes, exactly the API's millisecond precision, and one
// representation for both databases, so filters, sorts, the migration and
// backups (which move rows between dialects) share one code path. The
// created_by system field has no column of its own: its value is composed
// from created_by and the user's current display name (creatorKind).

// idArg is the stored form of a UUID in guid, created_by or updated_by
// ("" is NULL). A value that is not a UUID is passed as it is (it matches nothing).
func idArg(d store.Dialect, id string) any {
	if id == "" {
		return nil
	}
	if d == store.Postgres {
		return id
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return id
	}
	return u[:]
}

func idArgs(d store.Dialect, ids []string) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = idArg(d, id)
	}
	return out
}

// idString reads a scanned guid, created_by or updated_by.
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		if u, err := uuid.FromBytes(x); err == nil {
			return u.String()
		}
		return string(x)
	case [16]byte:
		return uuid.UUID(x).String()
	}
	return ""
}

// msArg is the stored form of created_at and updated_at.
func msArg(t time.Time) int64 { return t.UTC().UnixMilli() }

// fromMs reads a stored created_at or updated_at.
func fromMs(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// uuidText is the SQL of a row's uuid column as the 36-character text that
// TEXT ids (users.id on SQLite) hold.
func uuidText(d store.Dialect, col string) string {
	if d == store.Postgres {
		return col
	}
	return "uuid_text(" + col + ")"
}

// stampKind is the kind of the __created_at and __updated_at meta columns:
// datetime semantics (a date operand means that whole day) over milliseconds.
type stampKind struct{ field.Kind }

func newStampKind() stampKind {
	k, _ := field.Of(field.DateTime)
	return stampKind{k}
}

func (stampKind) Columns(store.Dialect, *field.Def) [][2]string { return nil }

func (stampKind) Cells(*field.Def, any) field.Cells { return field.Cells{} }

func (stampKind) Decode(_ *field.Def, raw any) any {
	if ms, ok := raw.(int64); ok {
		return stamp(fromMs(ms))
	}
	return nil
}

func (stampKind) Filter(f *field.Def, op string, o field.Operand) (string, []any, error) {
	switch op {
	case field.OpContains, field.OpStartsWith:
		return "", nil, &field.OpError{Message: "operator " + op + " does not apply to field \"" + f.Title + "\" of type datetime"}
	}
	return field.DayRangeFilter(f, f.Column(), op, o, func(t time.Time) any { return msArg(t) })
}

func (stampKind) SortExpr(f *field.Def) string { return f.Column() }

// creatorKind is the kind of the created_by system field: a person field
// (users only, single) read from the row's created_by column; its display,
// the user's current name, is filled in like every person value's
// (Service.fillDisplays, the principal name cache). Nothing is written for it.
type creatorKind struct {
	field.Kind // person: settings, search text
	d          store.Dialect
}

func newCreatorKind(d store.Dialect) creatorKind {
	k, _ := field.Of(field.Person)
	return creatorKind{Kind: k, d: d}
}

// creatorField is the created_by system field as items are read: its value
// comes from the created_by column.
func creatorField(d store.Dialect, f *field.Def) *field.Def {
	c := *f
	c.Kind = newCreatorKind(d)
	c.ColName = "created_by"
	return &c
}

// isCreator reports whether f is the created_by system field as read.
func isCreator(f *field.Def) bool {
	_, ok := f.Kind.(creatorKind)
	return ok
}

// isMeta reports whether f is a meta column (id, __created_at, __updated_at)
// rather than a field of the list.
func isMeta(f *field.Def) bool { return f.ColName != "" && !isCreator(f) }

func (creatorKind) Columns(store.Dialect, *field.Def) [][2]string { return nil }

func (creatorKind) Normalize(context.Context, *field.Def, json.RawMessage, field.Env) (any, error) {
	return nil, nil // not editable: the server keeps it
}

func (creatorKind) Cells(*field.Def, any) field.Cells { return field.Cells{} }

// Decode gives the subject without its display (fillDisplays adds it).
func (creatorKind) Decode(_ *field.Def, raw any) any {
	id := idString(raw)
	if id == "" {
		return nil
	}
	return field.Subject{PrincipalType: "user", ID: id}
}

// Filter: eq, ne and in compare the user id ([Я] is the caller), contains
// and startsWith the lower-cased display name (a subquery on users),
// isEmpty/isNotEmpty whether the row has a creator.
func (k creatorKind) Filter(f *field.Def, op string, o field.Operand) (string, []any, error) {
	col := "created_by"
	switch op {
	case field.OpIsEmpty:
		return col + " IS NULL", nil, nil
	case field.OpIsNotEmpty:
		return col + " IS NOT NULL", nil, nil
	case field.OpEq, field.OpNe, field.OpIn:
		vals := []any{o.Value}
		if op == field.OpIn {
			switch x := o.Value.(type) {
			case []any:
				vals = x
			case string:
				vals = nil
				for _, p := range strings.Split(x, ",") {
					if p = strings.TrimSpace(p); p != "" {
						vals = append(vals, p)
					}
				}
			}
			if len(vals) == 0 || len(vals) > 500 {
				return "", nil, &field.OpError{Message: "in needs 1 to 500 values"}
			}
		}
		args := make([]any, len(vals))
		for i, v := range vals {
			id, ok := creatorKey(v, o.UserID)
			if !ok {
				return "", nil, &field.OpError{Message: "value of \"" + f.Title + "\" must be a subject id or [Я]"}
			}
			args[i] = idArg(k.d, id)
		}
		switch op {
		case field.OpEq:
			return col + " = ?", args, nil
		case field.OpNe:
			return "(" + col + " IS NULL OR " + col + " <> ?)", args, nil
		}
		return col + " IN (" + store.Placeholders(len(args)) + ")", args, nil
	case field.OpContains, field.OpStartsWith:
		var s string
		switch x := o.Value.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(x)
		default:
			return "", nil, &field.OpError{Message: "value of \"" + f.Title + "\" must be text"}
		}
		p := likeEscape(field.Lower(strings.ReplaceAll(s, field.Sep, ""))) + "%"
		if op == field.OpContains {
			p = "%" + p
		}
		id := "id"
		if k.d == store.SQLite {
			id = "uuid_blob(id)"
		}
		return col + " IN (SELECT " + id + " FROM users WHERE " + field.Fold("display_name") + ` LIKE ? ESCAPE '\')`, []any{p}, nil
	}
	return "", nil, &field.OpError{Message: "operator " + op + " does not apply to field \"" + f.Title + "\" of type person"}
}

// creatorKey is the user id a condition names (a UUID, a subject or [Я]).
func creatorKey(v any, me string) (string, bool) {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == field.PlaceholderMe {
			return me, me != ""
		}
		if u, err := uuid.Parse(strings.TrimSpace(x)); err == nil {
			return u.String(), true
		}
	case map[string]any:
		if id, ok := x["id"].(string); ok {
			return creatorKey(id, me)
		}
	}
	return "", false
}

// SortExpr sorts by the lower-cased display name; a creator whose user is
// gone sorts as an empty name (the empty-value key is created_by itself,
// field.NullExpr), identically on both databases.
func (k creatorKind) SortExpr(*field.Def) string {
	return "coalesce((SELECT " + field.Fold("display_name") + " FROM users WHERE id = " + uuidText(k.d, "created_by") + "), '')"
}

// indexable reports whether an expression can key an index (a column or a
// folded column), as opposed to a subquery such as the creator's name.
func indexable(expr string) bool {
	if col, ok := field.Unfold(expr); ok {
		expr = col
	}
	return identRE.MatchString(expr)
}
