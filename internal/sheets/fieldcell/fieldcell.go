// Package fieldcell turns field values into spreadsheet cells. It is apart
// from package sheets so that the readers and writers depend on no field,
// store or database package (their fuzz test instruments every dependency).
package fieldcell

import (
	"fmt"
	"html"
	"strings"
	"time"

	"coreportal/internal/field"
	"coreportal/internal/sheets"
)

// Of is a field value (the API shape of internal/field) as a person
// reads it: numbers, dates, datetimes and booleans typed, several entries
// joined with "; ", persons and lookups by display, links as their URL,
// HTML as plain text.
func Of(typ string, v any) sheets.Cell {
	if v == nil {
		return sheets.Cell{}
	}
	switch typ {
	case field.Number:
		switch n := v.(type) {
		case float64:
			return sheets.Cell{Kind: sheets.Number, Num: n}
		case int64:
			return sheets.Cell{Kind: sheets.Number, Num: float64(n)}
		}
	case field.Boolean:
		if b, ok := v.(bool); ok {
			return sheets.Cell{Kind: sheets.Bool, Bool: b}
		}
	case field.Date:
		if s, ok := v.(string); ok {
			if t, err := time.Parse(time.DateOnly, s); err == nil {
				return sheets.Cell{Kind: sheets.Date, Time: t}
			}
		}
	case field.DateTime:
		if s, ok := v.(string); ok {
			if t, ok := field.ParseDateTime(s); ok {
				return sheets.Cell{Kind: sheets.DateTime, Time: t.Truncate(time.Second)}
			}
		}
	case field.Choice:
		return sheets.Cell{Text: strings.Join(field.ChoiceList(v), "; ")}
	case field.Person:
		var names []string
		for _, x := range field.Subjects(v) {
			names = append(names, x.Display)
		}
		return sheets.Cell{Text: strings.Join(names, "; ")}
	case field.Lookup:
		var names []string
		for _, x := range field.Lookups(v) {
			names = append(names, x.Display)
		}
		return sheets.Cell{Text: strings.Join(names, "; ")}
	case field.Link:
		l, _ := field.LinkOf(v)
		return sheets.Cell{Text: l.URL}
	case field.HTMLText:
		s, _ := v.(string)
		return sheets.Cell{Text: strings.TrimSpace(html.UnescapeString(field.PlainText(s)))}
	}
	return sheets.Cell{Text: fmt.Sprint(v)}
}
