package lists

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/principals"
	"coreportal/internal/store"
)

// Person and lookup values are stored as references (internal/field/refs.go);
// every read of items fills in their displays here, batched per read: one
// look-up of the principal name cache for every subject, one query per lookup
// target (list or library) for its items. A subject or target item that no
// longer exists shows an empty display (the reference stays).
//
// A lookup display is the text of another list's (or library's) item, so it
// is shown only to a caller who may view that target item: the viewer is the
// principal bound to the context (asViewer at every service entry point, the
// authenticated caller otherwise); a target item the viewer cannot view (no
// view on the target list, or an item with broken inheritance hidden from
// them) keeps its itemId and shows display "". Without a viewer every lookup
// display is "". Person displays (names of people) are shown to everyone.
// Filters and sorts reach lookup displays only through lookupTargetAs, which
// limits the target rows to the ones the caller can view.

// asViewer binds p to ctx as the caller displays are resolved for.
func asViewer(ctx context.Context, p *auth.Principal) context.Context {
	if p == nil || auth.FromContext(ctx) == p {
		return ctx
	}
	return auth.WithPrincipal(ctx, p)
}

// visibilityOf reads the caller's visibility of the items of a list (nil
// caller: nothing is visible).
func (s *Service) visibilityOf(ctx context.Context, p *auth.Principal, listID string) (*acl.Visibility, error) {
	v, err := s.acl.Visibility(ctx, p, acl.ListItem, listRef(listID), acl.Children)
	if err != nil {
		return nil, fmt.Errorf("lookup target visibility: %w", err)
	}
	return v, nil
}

// guidLiterals renders item guids as SQL literals of the guid column (16-byte
// blobs on SQLite, uuid on PostgreSQL); every id is parsed as a UUID first,
// so nothing but hex digits and dashes reaches the SQL. ok is false when an
// id is not a UUID.
func guidLiterals(d store.Dialect, ids []string) (string, bool) {
	parts := make([]string, len(ids))
	for i, id := range ids {
		u, err := uuid.Parse(id)
		if err != nil {
			return "", false
		}
		if d == store.Postgres {
			parts[i] = "'" + u.String() + "'"
		} else {
			parts[i] = "X'" + strings.ReplaceAll(u.String(), "-", "") + "'"
		}
	}
	return strings.Join(parts, ", "), true
}

// visibleSQL is the condition on the rows (alias lk) of a target list that
// the caller can view, the listing's own rule (acl.Visibility). The item
// ids are exceptions (few), written as literals so that the condition can
// sit in ORDER BY subqueries too. "" means every row.
func (s *Service) visibleSQL(ctx context.Context, p *auth.Principal, listID string) (string, error) {
	v, err := s.visibilityOf(ctx, p, listID)
	if err != nil {
		return "", err
	}
	d := s.db.Dialect
	c, err := v.Condition(acl.Column{Name: "lk.guid", Literal: func(id string) (string, bool) { return guidLiterals(d, []string{id}) }})
	if err != nil || c.SQL == "1 = 1" {
		return "", err
	}
	return c.SQL, nil
}

// displayDepth bounds lookups of lookups: the display of a target item whose
// display field is itself a lookup is resolved one level further, no more.
type displayDepthKey struct{}

const maxDisplayDepth = 2

// withDisplays sets the SQL displays of a list's person and lookup fields.
func (s *Service) withDisplays(l *List, fields []*field.Def) {
	// without a caller (the schema is shared) no target row is visible;
	// listings bind the caller with viewResolve
	d := &field.Displays{Dialect: s.db.Dialect, Table: safeIdent(l.Table), Target: func(f *field.Def) (field.LookupTarget, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return s.lookupTargetAs(ctx, nil, f)
	}}
	for _, f := range fields {
		if (f.Type == field.Person || f.Type == field.Lookup) && !isCreator(f) { // the creator has its own SQL (rowcols.go)
			f.Displays = d
		}
	}
}

// viewResolve is sc.resolve for the filters and sorts of one caller: lookup
// fields come back as copies whose display SQL only reaches the target rows
// p can view.
func (s *Service) viewResolve(ctx context.Context, p *auth.Principal, sc *schema) func(string) (*field.Def, bool) {
	bound := map[*field.Displays]*field.Displays{}
	return func(col string) (*field.Def, bool) {
		f, ok := sc.resolve(col)
		if !ok || f.Type != field.Lookup || f.Displays == nil {
			return f, ok
		}
		d := bound[f.Displays]
		if d == nil {
			c := *f.Displays
			c.Target = func(f *field.Def) (field.LookupTarget, bool) { return s.lookupTargetAs(ctx, p, f) }
			d = &c
			bound[f.Displays] = d
		}
		g := *f
		g.Displays = d
		return &g, true
	}
}

// lookupTargetAs is the SQL of a lookup field's target for the filters and
// sorts of caller p (nil: no target row is visible).
func (s *Service) lookupTargetAs(ctx context.Context, p *auth.Principal, f *field.Def) (field.LookupTarget, bool) {
	if f.Settings.LookupListID == "" {
		if s.libs == nil {
			return field.LookupTarget{}, false
		}
		return s.libs.DisplaySQL(ctx, p, s.db.Dialect, f.Settings.LookupLibraryID, f.Settings.LookupFieldID)
	}
	target, err := s.load(ctx, f.Settings.LookupListID)
	if err != nil {
		return field.LookupTarget{}, false
	}
	vis, err := s.visibleSQL(ctx, p, target.list.ID)
	if err != nil {
		return field.LookupTarget{}, false
	}
	t := field.LookupTarget{Table: safeIdent(target.list.Table), Key: "id", Where: vis, Display: "lk.id", Text: "CAST(id AS TEXT)"}
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
// 500 numbers) that the caller bound to ctx can view; missing and hidden items
// and targets are absent from the map.
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
	vis, err := s.visibilityOf(ctx, auth.FromContext(ctx), target.list.ID)
	if err != nil {
		return nil, err
	}
	if vis.None() {
		return out, nil // nothing of the target is visible: no query
	}
	df := displayField(target, tk.ref)
	var fields []*field.Def
	if df != nil && df.Col != 0 {
		fields = []*field.Def{df}
	}
	for _, chunk := range store.UniqueChunks(numbers, 500) {
		items, err := s.st.itemsByNumber(ctx, target.list, fields, chunk)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if !vis.Sees(it.GUID) {
				continue // hidden from the caller: display ""
			}
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

// withoutLookupDisplays is a copy of values whose lookup entries keep their
// item numbers with display "" (live events: one frame for every viewer).
func withoutLookupDisplays(fields []*field.Def, values map[string]any) map[string]any {
	out := make(map[string]any, len(values))
	for k, v := range values {
		out[k] = v
	}
	for _, f := range fields {
		if f.Type != field.Lookup {
			continue
		}
		switch v := values[f.ID].(type) {
		case field.LookupValue:
			out[f.ID] = field.LookupValue{ItemID: v.ItemID}
		case []field.LookupValue:
			c := make([]field.LookupValue, len(v))
			for i := range v {
				c[i] = field.LookupValue{ItemID: v[i].ItemID}
			}
			out[f.ID] = c
		}
	}
	return out
}

// hideLookupDisplays blanks, in stored snapshots (versions), the displays of
// lookup entries whose target item the caller bound to ctx cannot view now;
// the displays of visible targets stay as they were recorded.
func (s *Service) hideLookupDisplays(ctx context.Context, fields []*field.Def, snapshots []map[string]any) error {
	for _, f := range fields {
		if f.Type != field.Lookup {
			continue
		}
		var numbers []int64
		for _, vals := range snapshots {
			for _, l := range field.Lookups(vals[f.ID]) {
				numbers = append(numbers, l.ItemID)
			}
		}
		if len(numbers) == 0 {
			continue
		}
		visible, err := s.targetDisplays(ctx, targetOf(f), numbers)
		if err != nil {
			return err
		}
		for _, vals := range snapshots {
			v, ok := vals[f.ID]
			if !ok || v == nil {
				continue
			}
			list := field.Lookups(v)
			for i := range list {
				if _, seen := visible[list[i].ItemID]; !seen {
					list[i].Display = ""
				}
			}
			if _, multi := v.([]any); multi {
				vals[f.ID] = list
			} else if len(list) > 0 {
				vals[f.ID] = list[0]
			}
		}
	}
	return nil
}
