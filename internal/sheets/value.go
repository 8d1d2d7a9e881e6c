package sheets

import (
	"fmt"
	"html"
	"strings"
	"time"

	"coreportal/internal/field"
)

// ValueCell is a field value (the API shape of internal/field) as a person
// reads it: numbers, dates, datetimes and booleans typed, several entries
// joined with "; ", persons and lookups by display, links as their URL,
// HTML as plain text.
func ValueCell(typ string, v any) Cell {
	if v == nil {
		return Cell{}
	}
	switch typ {
	case field.Number:
		switch n := v.(type) {
		case float64:
			return Cell{Kind: Number, Num: n}
		case int64:
			return Cell{Kind: Number, Num: float64(n)}
		}
	case field.Boolean:
		if b, ok := v.(bool); ok {
			return Cell{Kind: Bool, Bool: b}
		}
	case field.Date:
		if s, ok := v.(string); ok {
			if t, err := time.Parse(time.DateOnly, s); err == nil {
				return Cell{Kind: Date, Time: t}
			}
		}
	case field.DateTime:
		if s, ok := v.(string); ok {
			if t, ok := field.ParseDateTime(s); ok {
				return Cell{Kind: DateTime, Time: t.Truncate(time.Second)}
			}
		}
	case field.Choice:
		return Cell{Text: strings.Join(field.ChoiceList(v), "; ")}
	case field.Person:
		var names []string
		for _, x := range field.Subjects(v) {
			names = append(names, x.Display)
		}
		return Cell{Text: strings.Join(names, "; ")}
	case field.Lookup:
		var names []string
		for _, x := range field.Lookups(v) {
			names = append(names, x.Display)
		}
		return Cell{Text: strings.Join(names, "; ")}
	case field.Link:
		l, _ := field.LinkOf(v)
		return Cell{Text: l.URL}
	case field.HTMLText:
		s, _ := v.(string)
		return Cell{Text: strings.TrimSpace(html.UnescapeString(field.PlainText(s)))}
	}
	return Cell{Text: fmt.Sprint(v)}
}
