package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/sheets"
)

// sharePointSkipped are the columns of SharePoint list exports that the
// portal keeps itself (creator, times, ids, paths): they are never imported.
// Keys are lower-cased English and Russian titles.
var sharePointSkipped = map[string]bool{
	"id": true, "created": true, "modified": true, "created by": true, "modified by": true, "author": true, "editor": true,
	"item type": true, "path": true, "content type": true, "version": true, "attachments": true, "compliance asset id": true,
	"app created by": true, "app modified by": true, "item child count": true, "folder child count": true, "label setting": true,
	"retention label": true, "retention label applied": true, "label applied by": true, "item is a record": true, "_uiversionstring": true,
	"создано": true, "изменено": true, "кем создано": true, "кем изменено": true, "автор": true, "редактор": true,
	"тип элемента": true, "путь": true, "тип содержимого": true, "версия": true, "вложения": true,
}

// titleHeaders name the title column of SharePoint exports.
var titleHeaders = map[string]bool{"title": true, "название": true, "заголовок": true}

// skipReason says why a column is not imported ("" when it is).
func skipReason(header string) string {
	h := strings.ToLower(strings.TrimSpace(header))
	if sharePointSkipped[h] {
		return "skipped: \"" + header + "\" is a system column of SharePoint exports; the portal records creator, editor and times itself"
	}
	if h == "" {
		return "skipped: the column has no title"
	}
	return ""
}

// userMatcher resolves the names in person cells to users: display name,
// login or e-mail, compared case-insensitively; answers are cached.
type userMatcher struct {
	s     *Service
	cache map[string]string // folded name -> user id ("" none)
}

func (s *Service) newUserMatcher() *userMatcher {
	return &userMatcher{s: s, cache: map[string]string{}}
}

func (m *userMatcher) find(ctx context.Context, name string) (string, error) {
	k := field.Lower(strings.TrimSpace(name))
	if id, ok := m.cache[k]; ok {
		return id, nil
	}
	var ids []string
	rows, err := m.s.db.Q(ctx).QueryContext(ctx, `SELECT id FROM users WHERE is_system = ? AND is_active = ?
		AND (`+field.Fold("display_name")+` = ? OR `+field.Fold("login")+` = ? OR `+field.Fold("email")+` = ?) LIMIT 2`, false, true, k, k, k)
	if err != nil {
		return "", fmt.Errorf("match users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	id := ""
	if len(ids) == 1 {
		id = ids[0]
	}
	if len(m.cache) < 100_000 {
		m.cache[k] = id
	}
	return id, nil
}

// all reports whether every name is a user (preview: person proposals).
func (m *userMatcher) all(ctx context.Context, names []string) bool {
	n := 0
	for _, v := range names {
		for _, name := range splitEntries(v) {
			id, err := m.find(ctx, name)
			if err != nil || id == "" {
				return false
			}
			n++
		}
	}
	return n > 0
}

// splitEntries splits a cell of several entries: "a; b", SharePoint's "a;#b".
func splitEntries(s string) []string {
	s = strings.ReplaceAll(s, ";#", ";")
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// cellValue turns a cell into the request value of field f, as a client
// of quick edit would send it; the field's own validation runs after. A
// message is returned for a cell that cannot be read as the field's type.
func cellValue(ctx context.Context, f *field.Def, c sheets.Cell, users *userMatcher) (json.RawMessage, string, error) {
	text := strings.TrimSpace(c.Text)
	if text == "" && c.Kind == sheets.Text {
		return json.RawMessage("null"), "", nil
	}
	var v any
	switch f.Type {
	case field.Text, field.MultilineText:
		v = c.Text
		if f.Type == field.Text {
			v = text
		}
	case field.HTMLText:
		v = strings.ReplaceAll(html.EscapeString(c.Text), "\n", "<br>")
	case field.Number:
		n, ok := sheets.ParseNumber(c)
		if !ok {
			if b, isBool := sheets.ParseBool(c); isBool && c.Kind == sheets.Bool {
				n, ok = map[bool]float64{true: 1, false: 0}[b], true
			}
		}
		if !ok {
			return nil, fmt.Sprintf("%q is not a number", text), nil
		}
		v = n
	case field.Date, field.DateTime:
		w, ok := sheets.ParseDate(c)
		if !ok {
			return nil, fmt.Sprintf("%q is not a date (YYYY-MM-DD, DD.MM.YYYY or M/D/YYYY)", text), nil
		}
		if f.Type == field.Date {
			v = w.Format(time.DateOnly)
		} else {
			v = w.UTC().Format(time.RFC3339)
		}
	case field.Boolean:
		b, ok := sheets.ParseBool(c)
		if !ok && c.Kind == sheets.Number && (c.Num == 0 || c.Num == 1) {
			b, ok = c.Num == 1, true
		} else if !ok && (text == "1" || text == "0") {
			b, ok = text == "1", true
		}
		if !ok {
			return nil, fmt.Sprintf("%q is not yes or no", text), nil
		}
		v = b
	case field.Choice:
		if f.Settings.Multiple(false) {
			v = splitEntries(text)
		} else {
			v = text
		}
	case field.Person:
		var subs []map[string]string
		for _, name := range splitEntries(text) {
			id, err := users.find(ctx, name)
			if err != nil {
				return nil, "", err
			}
			if id == "" {
				return nil, fmt.Sprintf("no single active user has the name, login or e-mail %q", name), nil
			}
			subs = append(subs, map[string]string{"principalType": "user", "id": id})
		}
		if f.Settings.Multiple(true) {
			v = subs
		} else if len(subs) > 1 {
			return nil, "the field holds one person", nil
		} else {
			v = subs[0]
		}
	case field.Lookup:
		var ids []int64
		for _, e := range splitEntries(text) {
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				return nil, fmt.Sprintf("%q is not an item number (lookup values are imported by item number)", e), nil
			}
			ids = append(ids, n)
		}
		if f.Settings.Multiple(false) {
			v = ids
		} else if len(ids) > 1 {
			return nil, "the field holds one item", nil
		} else {
			v = ids[0]
		}
	case field.Link:
		u, d, _ := strings.Cut(text, ", ") // SharePoint: "url, description"
		v = map[string]string{"url": strings.TrimSpace(u), "description": strings.TrimSpace(d)}
	default:
		v = text
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	return raw, "", nil
}

// previewValue is a cell as the proposed type would store it (preview rows).
func previewValue(typ string, c sheets.Cell) any {
	text := strings.TrimSpace(c.Text)
	if text == "" && c.Kind == sheets.Text {
		return nil
	}
	switch typ {
	case sheets.TypeNumber:
		if n, ok := sheets.ParseNumber(c); ok {
			return n
		}
	case sheets.TypeBoolean:
		if b, ok := sheets.ParseBool(c); ok {
			return b
		}
	case sheets.TypeDate:
		if w, ok := sheets.ParseDate(c); ok {
			return w.Format(time.DateOnly)
		}
	case sheets.TypeDateTime:
		if w, ok := sheets.ParseDate(c); ok {
			return w.UTC().Format(field.DateTimeLayout)
		}
	case sheets.TypeChoice, sheets.TypePerson:
		if e := splitEntries(text); len(e) > 1 {
			return e
		}
	case sheets.TypeMultiline:
		return c.Text
	}
	return text
}
