package lists

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// ListPersonOption is one subject offered by the person picker.
type ListPersonOption struct {
	PrincipalType string `json:"principalType" enum:"user,group"`
	ID            string `json:"id"`
	Display       string `json:"display"`
	Subtitle      string `json:"subtitle,omitempty"`
	Email         string `json:"email,omitempty"`
}

// MaxPersonOptions is the limit of SPEC.md.
const MaxPersonOptions = 15

// PersonOptions searches users (display name, login, email) and groups (name,
// description) allowed by the field's settings (view on the list).
func (s *Service) PersonOptions(ctx context.Context, p *auth.Principal, listID, fieldID, q string, exclude []string) ([]ListPersonOption, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return nil, err
	}
	settings := field.FieldSettings{}
	if fieldID != "" {
		f, ok := sc.resolve(fieldID)
		if !ok || f.Type != field.Person {
			return nil, fault.Validation("fieldId", "fieldId is not a person field of this list")
		}
		settings = f.Settings
	}
	var ex []any
	for _, id := range exclude {
		if id = strings.TrimSpace(id); id != "" {
			if _, err := uuid.Parse(id); err != nil {
				return nil, fault.Validation("excludeIds", "excludeIds must be UUIDs separated by commas")
			}
			ex = append(ex, strings.ToLower(id))
		}
	}
	if len(ex) > 500 {
		return nil, fault.Validation("excludeIds", "at most 500 excludeIds")
	}
	like := "%" + likeEscape(field.Lower(strings.TrimSpace(q))) + "%"
	notIn := ""
	if len(ex) > 0 {
		notIn = " AND id NOT IN (" + store.Placeholders(len(ex)) + ")"
	}
	out := []ListPersonOption{}
	if field.PersonAllows(settings, "user") {
		args := append([]any{like, false, true}, ex...)
		rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, display_name, login, email FROM users
			WHERE search_text LIKE ? ESCAPE '\' AND is_system = ? AND is_active = ?`+notIn+` ORDER BY display_name, login LIMIT ?`,
			append(args, MaxPersonOptions)...)
		if err != nil {
			return nil, fmt.Errorf("search users: %w", err)
		}
		for rows.Next() {
			var o ListPersonOption
			var login string
			if err := rows.Scan(&o.ID, &o.Display, &login, &o.Email); err != nil {
				rows.Close()
				return nil, err
			}
			o.PrincipalType, o.Subtitle = "user", login
			out = append(out, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if n := MaxPersonOptions - len(out); n > 0 && field.PersonAllows(settings, "group") {
		args := append([]any{like}, ex...)
		rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, name, description FROM groups WHERE search_text LIKE ? ESCAPE '\'`+notIn+
			` ORDER BY name LIMIT ?`, append(args, n)...)
		if err != nil {
			return nil, fmt.Errorf("search groups: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			o := ListPersonOption{PrincipalType: "group"}
			if err := rows.Scan(&o.ID, &o.Display, &o.Subtitle); err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LookupOption is one item offered by the lookup picker.
type LookupOption struct {
	ItemID  int64  `json:"itemId"`
	Display string `json:"display"`
}

// LookupOptions is the answer of lookup-options.
type LookupOptions struct {
	Options      []LookupOption `json:"options"`
	AccessDenied bool           `json:"accessDenied"`
	Message      *string        `json:"message"`
}

const maxLookupOptions = 50

// LookupOptions searches items of the target list by the display field. A
// target the caller cannot view answers accessDenied=true with no options.
func (s *Service) LookupOptions(ctx context.Context, p *auth.Principal, listID, targetList, targetLibrary, q, fieldRef string) (LookupOptions, error) {
	ctx = asViewer(ctx, p)
	if _, err := s.open(ctx, p, listID, acl.View); err != nil {
		return LookupOptions{}, err
	}
	if (targetList == "") == (targetLibrary == "") {
		return LookupOptions{}, fault.Validation("targetListId", "exactly one of targetListId and targetLibraryId is required")
	}
	denied := func(msg string) LookupOptions {
		return LookupOptions{Options: []LookupOption{}, AccessDenied: true, Message: &msg}
	}
	if targetLibrary != "" {
		if _, err := uuid.Parse(targetLibrary); err != nil {
			return LookupOptions{}, fault.Validation("targetLibraryId", "targetLibraryId must be a UUID")
		}
		if s.libs == nil {
			return denied("document libraries are not available"), nil
		}
		opts, accessDenied, err := s.libs.Options(ctx, p, targetLibrary, fieldRef, q, maxLookupOptions)
		if err != nil {
			return LookupOptions{}, err
		}
		if accessDenied {
			return denied("you do not have access to the lookup target"), nil
		}
		out := LookupOptions{Options: make([]LookupOption, 0, len(opts))}
		for _, o := range opts {
			out.Options = append(out.Options, LookupOption{ItemID: o.ItemID, Display: o.Display})
		}
		return out, nil
	}
	if _, err := uuid.Parse(targetList); err != nil {
		return LookupOptions{}, fault.Validation("targetListId", "targetListId must be a UUID")
	}
	lvl, err := s.acl.Level(ctx, p, listRef(targetList))
	if err != nil {
		return LookupOptions{}, err
	}
	if lvl < acl.View {
		return denied("you do not have access to the lookup target"), nil
	}
	target, err := s.load(ctx, targetList)
	if err != nil {
		return denied("the lookup target does not exist"), nil
	}
	df := target.field(sysTitle)
	if fieldRef != "" {
		f, ok := target.resolve(fieldRef)
		if !ok || isMeta(f) {
			return LookupOptions{}, fault.Validation("lookupFieldId", "lookupFieldId is not a field of the target list")
		}
		df = f
	}
	vis, args, err := s.visibility(ctx, p, target)
	if err != nil {
		return LookupOptions{}, err
	}
	where := vis
	if q = strings.TrimSpace(q); q != "" {
		cond, qargs := s.qCondition(target, q)
		where += " AND " + cond
		args = append(args, qargs...)
	}
	order, _ := queryOrder(df)
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+itemSelect(target.fields)+" FROM "+safeIdent(target.list.Table)+
		" WHERE "+where+" ORDER BY "+order+" LIMIT ?", append(args, maxLookupOptions)...)
	if err != nil {
		return LookupOptions{}, fmt.Errorf("lookup options: %w", err)
	}
	defer rows.Close()
	out := LookupOptions{Options: []LookupOption{}}
	var items []*Item
	for rows.Next() {
		it, err := scanItem(rows, target.fields)
		if err != nil {
			return LookupOptions{}, err
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return LookupOptions{}, err
	}
	rows.Close()
	if err := s.fillDisplays(ctx, []*field.Def{df}, items); err != nil {
		return LookupOptions{}, err
	}
	for _, it := range items {
		d := lookupDisplay(target, it, df.ID)
		if df.Col == 0 {
			d = fmt.Sprint(it.Number)
		}
		out.Options = append(out.Options, LookupOption{ItemID: it.Number, Display: d})
	}
	return out, nil
}

func queryOrder(f *field.Def) (string, error) {
	expr := field.MustOf(f).SortExpr(f)
	return "(" + expr + " IS NULL), " + expr + ", id", nil
}
