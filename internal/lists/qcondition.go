package lists

import (
	"strings"

	"coreportal/internal/field"
	"coreportal/internal/search"
)

// qCondition is the SQL condition of a listing's q: the items whose text
// contains q, case-insensitively. Searchable lists ask the search index (its
// entries of the list's items carry the display text of every field, kept in
// step in the saving transaction); a list with searchEnabled=false has no
// entries, so q compares its text columns (lower-cased) directly.
func (s *Service) qCondition(sc *schema, q string) (string, []any) {
	if s.index != nil && sc.list.SearchEnabled {
		return search.ItemsMatching(sc.list.ID, q)
	}
	p := "%" + likeEscape(field.Lower(q)) + "%"
	var parts []string
	var args []any
	for _, f := range sc.fields {
		if isCreator(f) { // the creator's name, from users
			cond, cargs, err := field.MustOf(f).Filter(f, field.OpContains, field.Operand{Value: q})
			if err == nil {
				parts = append(parts, cond)
				args = append(args, cargs...)
			}
			continue
		}
		if f.Col == 0 || f.ColName != "" {
			continue
		}
		var expr string
		switch f.Type {
		case field.Text, field.MultilineText:
			expr = field.Fold(safeIdent(f.Column()))
		case field.Choice:
			expr = field.ChoiceFrame(safeIdent(f.Column()))
		case field.HTMLText, field.Link:
			expr = safeIdent(f.CI())
		case field.Lookup:
			// never the displays of lookup targets: they are another list's
			// text (hidden from some callers, and the search index leaves
			// them out as well)
			continue
		case field.Person:
			// the displays: the subjects whose name contains q
			if cond, a, err := field.MustOf(f).Filter(f, field.OpContains, field.Operand{Value: q}); err == nil {
				parts = append(parts, "("+cond+")")
				args = append(args, a...)
			}
			continue
		default:
			continue
		}
		parts = append(parts, expr+" LIKE ? ESCAPE '\\'")
		args = append(args, p)
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}
