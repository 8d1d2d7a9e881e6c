package lists

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/principals"
)

// Person and lookup values are stored as references (internal/field/refs.go);
// every read of items fills in their displays here, batched per read: one
// look-up of the principal name cache for every subject, one query per lookup
// target (list or library) for its items. A subject or target item that no
// longer exists shows an empty display (the reference stays). Displays are
// shown to whoever sees the item, as they were when they were stored.

// displayDepth bounds lookups of lookups: the display of a target item whose
// display field is itself a lookup is resolved one level further, no more.
type displayDepthKey struct{}

const maxDisplayDepth = 2

// withDisplays sets the SQL displays of a list's person and lookup fields.
func (s *Service) withDisplays(l *List, fields []*field.Def) {
	d := &field.Displays{Dialect: s.db.Dialect, Table: safeIdent(l.Table), Target: s.lookupTarget}
	for _, f := range fields {
		if (f.Type == field.Person || f.Type == field.Lookup) && !isCreator(f) { // the creator has its own SQL (rowcols.go)
			f.Displays = d
		}
	}
}

// lookupTarget is the SQL of a lookup field's target for filters and sorts.
func (s *Service) lookupTarget(f *field.Def) (field.LookupTarget, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if f.Settings.LookupListID == "" {
		if s.libs == nil {
			return field.LookupTarget{}, false
		}
		return s.libs.DisplaySQL(ctx, s.db.Dialect, f.Settings.LookupLibraryID, f.Settings.LookupFieldID)
	}
	target, err := s.load(ctx, f.Settings.LookupListID)
	if err != nil {
		return field.LookupTarget{}, false
	}
	t := field.LookupTarget{Table: safeIdent(target.list.Table), Key: "id", Display: "lk.id", Text: "CAST(id AS TEXT)"}
	df := displayField(target, f.Settings.LookupFieldID)
	if df == nil || df.Col == 0 {
		return t, true
	}
	col := safeIdent(df.Column())
	switch df.Type {
	case field.Text, field.MultilineText, field.Choice:
		t.Display, t.Text, t.Textual = field.Fold("lk."+col), field.Fold(col), true
	case field.HTMLText, field.Link:
		t.Display, t.Text, t.Textual = "lk."+safeIdent(df.CI()), safeIdent(df.CI()), true
	case field.Person, field.Lookup:
		// the display of a reference is itself resolved: order and match by the item number
	default:
		t.Display, t.Text = "lk."+col, field.Fold("CAST("+col+" AS TEXT)")
	}
	return t, true
}

// displayField is the field of a target list whose value is the lookup
// display (lookupFieldId, else the title; nil when neither exists).
func displayField(target *schema, fieldRef string) *field.Def {
	f := target.field(sysTitle)
	if fieldRef != "" {
		if tf, ok := target.resolve(fieldRef); ok && !isMeta(tf) {
			f = tf
		}
	}
	return f
}

type targetKey struct{ list, library, ref string }

func targetOf(f *field.Def) targetKey {
	return targetKey{f.Settings.LookupListID, f.Settings.LookupLibraryID, f.Settings.LookupFieldID}
}

// fillDisplays sets the displays of the person and lookup values of items.
func (s *Service) fillDisplays(ctx context.Context, fields []*field.Def, items []*Item) error {
	if len(items) == 0 {
		return nil
	}
	var keys []principals.Key
	wanted := map[targetKey][]int64{}
	for _, f := range fields {
		for _, it := range items {
			switch f.Type {
			case field.Person:
				for _, sub := range field.Subjects(it.Values[f.ID]) {
					keys = append(keys, principals.Key{Type: sub.PrincipalType, ID: sub.ID})
				}
			case field.Lookup:
				for _, l := range field.Lookups(it.Values[f.ID]) {
					wanted[targetOf(f)] = append(wanted[targetOf(f)], l.ItemID)
				}
			}
		}
	}
	var names map[principals.Key]string
	if len(keys) > 0 {
		var err error
		if names, err = principals.For(s.db).Lookup(ctx, keys); err != nil {
			return err
		}
	}
	found := map[targetKey]map[int64]string{}
	depth, _ := ctx.Value(displayDepthKey{}).(int)
	if depth < maxDisplayDepth {
		inner := context.WithValue(ctx, displayDepthKey{}, depth+1)
		for tk, numbers := range wanted {
			m, err := s.targetDisplays(inner, tk, numbers)
			if err != nil {
				return err
			}
			found[tk] = m
		}
	}
	for _, f := range fields {
		for _, it := range items {
			switch v := it.Values[f.ID].(type) {
			case field.Subject:
				v.Display = names[principals.Key{Type: v.PrincipalType, ID: v.ID}]
				it.Values[f.ID] = v
			case []field.Subject:
				for i := range v {
					v[i].Display = names[principals.Key{Type: v[i].PrincipalType, ID: v[i].ID}]
				}
			case field.LookupValue:
				v.Display = found[targetOf(f)][v.ItemID]
				it.Values[f.ID] = v
			case []field.LookupValue:
				m := found[targetOf(f)]
				for i := range v {
					v[i].Display = m[v[i].ItemID]
				}
			}
		}
	}
	return nil
}

// fillValueDisplays sets the displays of loose values of one field (groups).
func (s *Service) fillValueDisplays(ctx context.Context, f *field.Def, values []any) error {
	items := make([]*Item, len(values))
	for i, v := range values {
		items[i] = &Item{Values: map[string]any{f.ID: v}}
	}
	if err := s.fillDisplays(ctx, []*field.Def{f}, items); err != nil {
		return err
	}
	for i := range values {
		values[i] = items[i].Values[f.ID]
	}
	return nil
}

// targetDisplays reads the displays of target items by number (one query per
// 500 numbers); missing items and targets are absent from the map.
func (s *Service) targetDisplays(ctx context.Context, tk targetKey, numbers []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if tk.list == "" {
		if s.libs == nil {
			return out, nil
		}
		return s.libs.Displays(ctx, tk.library, tk.ref, numbers)
	}
	target, err := s.load(ctx, tk.list)
	if fault.Is(err, fault.CodeNotFound) || fault.Is(err, fault.CodeValidation) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lookup target %s: %w", tk.list, err)
	}
	df := displayField(target, tk.ref)
	var fields []*field.Def
	if df != nil && df.Col != 0 {
		fields = []*field.Def{df}
	}
	seen := map[int64]bool{}
	var uniq []int64
	for _, n := range numbers {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	for len(uniq) > 0 {
		chunk := uniq[:min(len(uniq), 500)]
		uniq = uniq[len(chunk):]
		items, err := s.st.itemsByNumber(ctx, target.list, fields, chunk)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if df == nil || df.Col == 0 {
				out[it.Number] = strconv.FormatInt(it.Number, 10)
				continue
			}
			out[it.Number] = displayText(df, it.Values[df.ID])
		}
	}
	return out, nil
}

// userNames returns display names of users by id (the principal name cache).
func (s *Store) userNames(ctx context.Context, ids []string) (map[string]string, error) {
	return principals.For(s.db).Users(ctx, ids)
}
