package field

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// Person values are stored as compact subject references in f_n (refs.go);
// displays come from the principal name cache at read time.
type personKind struct{}

// Subject is one person-field entry.
type Subject struct {
	PrincipalType string `json:"principalType"`
	ID            string `json:"id"`
	Display       string `json:"display"`
}

func init() { register(Person, personKind{}) }

func (personKind) Columns(d store.Dialect, f *Def) [][2]string {
	return [][2]string{{f.Column(), "TEXT"}}
}

// CheckSettings fills the defaults of SPEC.md: without settings every flag is true.
func (personKind) CheckSettings(s FieldSettings, _ bool) (FieldSettings, error) {
	out := FieldSettings{AllowUsers: boolPtr(flag(s.AllowUsers, true)), AllowGroups: boolPtr(flag(s.AllowGroups, true)),
		AllowMultiple: boolPtr(s.Multiple(true))}
	if !*out.AllowUsers && !*out.AllowGroups {
		return FieldSettings{}, fmt.Errorf("settings: allowUsers and allowGroups cannot both be false")
	}
	return out, nil
}

// PersonAllows reports whether a subject type is allowed by the settings.
func PersonAllows(s FieldSettings, principalType string) bool {
	if principalType == "group" {
		return flag(s.AllowGroups, true)
	}
	return flag(s.AllowUsers, true)
}

func (personKind) Normalize(ctx context.Context, f *Def, raw json.RawMessage, env Env) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, invalid(f, "value must be a subject or an array of subjects")
		}
	} else {
		items = []json.RawMessage{raw}
	}
	var out []Subject
	for _, it := range items {
		var s Subject
		var id string
		if json.Unmarshal(it, &id) == nil {
			s = Subject{PrincipalType: "user", ID: id}
		} else if err := json.Unmarshal(it, &s); err != nil {
			return nil, invalid(f, "each subject must be { principalType, id }")
		}
		if s.PrincipalType == "" {
			s.PrincipalType = "user"
		}
		if s.PrincipalType != "user" && s.PrincipalType != "group" {
			return nil, invalid(f, "principalType must be user or group")
		}
		uid, err := uuid.Parse(s.ID)
		if err != nil {
			return nil, invalid(f, "subject id must be a UUID")
		}
		s.ID = uid.String() // canonical lower-case form, so that filters and dedupe match

		if !PersonAllows(f.Settings, s.PrincipalType) {
			return nil, invalid(f, "%ss are not allowed in this field", s.PrincipalType)
		}
		dup := false
		for _, o := range out {
			dup = dup || o.ID == s.ID
		}
		if dup {
			continue
		}
		d, err := env.Subject(ctx, s.PrincipalType, s.ID)
		if err != nil {
			return nil, invalid(f, "%s %s does not exist", s.PrincipalType, s.ID)
		}
		s.Display = d
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if !f.Settings.Multiple(true) {
		if len(out) > 1 {
			return nil, invalid(f, "only one subject is allowed")
		}
		return out[0], nil
	}
	return out, nil
}

// Subjects returns the entries of a person value (API or stored shape).
func Subjects(v any) []Subject {
	switch x := v.(type) {
	case []Subject:
		return x
	case Subject:
		return []Subject{x}
	case map[string]any, []any:
		j, _ := json.Marshal(x)
		var list []Subject
		if json.Unmarshal(j, &list) != nil {
			var one Subject
			if json.Unmarshal(j, &one) == nil && one.ID != "" {
				return []Subject{one}
			}
		}
		return list
	}
	return nil
}

func (personKind) Cells(f *Def, v any) Cells {
	list := Subjects(v)
	if len(list) == 0 {
		return Cells{f.Column(): nil}
	}
	return Cells{f.Column(): CompactSubjects(list)}
}

// Decode reads the stored subjects; their displays are empty until the owner
// of the table resolves them (ResolveSubjects).
func (personKind) Decode(f *Def, raw any) any {
	s, _ := asString(raw).(string)
	list := parseSubjects(s)
	if len(list) == 0 {
		return nil
	}
	if !f.Settings.Multiple(true) {
		return list[0]
	}
	return list
}

func (personKind) Search(_ *Def, v any) string {
	var parts []string
	for _, s := range Subjects(v) {
		parts = append(parts, s.Display)
	}
	return strings.Join(parts, " ")
}

func (personKind) Filter(f *Def, op string, o Operand) (string, []any, error) {
	col := f.Column()
	if s, ok := emptyOps(col, op); ok {
		return s, nil, nil
	}
	vals, err := o.values(op)
	if err != nil {
		return "", nil, err
	}
	switch op {
	case OpEq, OpNe, OpIn:
		return entriesMatch(f, op, col, vals, func(v any) (string, error) {
			id, err := personKey(f, o, v)
			return "%" + likeEscape(id) + "%", err
		})
	case OpContains, OpStartsWith:
		p, err := displayPattern(f, op, vals)
		if err != nil {
			return "", nil, err
		}
		d := f.Displays
		uid, gid := "id", "id"
		if d.postgres() {
			uid, gid = "CAST(id AS TEXT)", "CAST(id AS TEXT)"
		}
		sub := "SELECT 'u:' || " + uid + " FROM users WHERE " + Fold("display_name") + " LIKE ?" + esc +
			" UNION ALL SELECT 'g:' || " + gid + " FROM groups WHERE " + Fold("name") + " LIKE ?" + esc
		return col + " IS NOT NULL AND " + anyOf(d, col, sub, false), []any{p, p}, nil
	}
	return "", nil, unsupported(f, op)
}

// personKey is the subject id a person condition names.
func personKey(f *Def, o Operand, v any) (string, error) {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == PlaceholderMe {
			return o.UserID, nil
		}
		if u, err := uuid.Parse(strings.TrimSpace(x)); err == nil {
			return u.String(), nil
		}
	case map[string]any:
		if id, ok := x["id"].(string); ok {
			if u, err := uuid.Parse(strings.TrimSpace(id)); err == nil {
				return u.String(), nil
			}
		}
	}
	return "", opErr("value of %q must be a subject id or [Я]", f.Title)
}

// SortExpr is the stored column (what indexes may cover); listings order by
// the display through OrderExpr.
func (personKind) SortExpr(f *Def) string { return f.Column() }

// personOrder is the folded display of the first subject (” when it is gone).
func personOrder(f *Def) string {
	col := outerColumn(f)
	id, collate := "substr("+col+", 3, 36)", ""
	if f.Displays.postgres() {
		id, collate = "CAST("+id+" AS uuid)", ` COLLATE "C"`
	}
	// a subject that is gone orders as an empty name, identically on both databases
	return "coalesce(CASE WHEN substr(" + col + ", 1, 1) = 'g' THEN (SELECT " + Fold("name") + collate + " FROM groups WHERE id = " + id +
		") ELSE (SELECT " + Fold("display_name") + collate + " FROM users WHERE id = " + id + ") END, '')"
}
