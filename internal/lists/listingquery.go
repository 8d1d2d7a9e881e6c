package lists

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/query"
	"coreportal/internal/store"
)

// listing is the query of a listing: which rows (the caller's visibility,
// the view's filter, the user's filter and q) in which order. The listing
// and the export share it, so both show exactly the same items.
type listing struct {
	sc         *schema
	view       *ListView
	keys       []query.SortKey
	groupBy    *field.Def
	order      string
	userFilter query.FilterSpec
	viewSQL    string
	userSQL    string
	q          string
	inView     []string
	inViewArgs []any
	where      []string
	args       []any
	ex         *exceptions
}

// listingOf builds the query of a listing for p (view on the list).
func (s *Service) listingOf(ctx context.Context, p *auth.Principal, sc *schema, in ListParams) (*listing, error) {
	listID := sc.list.ID
	var v *ListView
	var err error
	if in.ViewID != "" {
		if _, err := uuid.Parse(in.ViewID); err != nil {
			return nil, fault.Validation("viewId", "viewId must be a UUID")
		}
		if v, err = s.viewOf(ctx, listID, in.ViewID); err != nil {
			return nil, err
		}
	} else if v, err = s.st.defaultView(ctx, listID); err != nil {
		if !store.IsNotFound(err) {
			return nil, err
		}
		v = &ListView{ListID: listID, IsDefault: true, Config: DefaultViewConfig()}
	}
	sortRaw, sortName := in.Sort, "sort"
	if strings.TrimSpace(in.OrderBy) != "" {
		sortRaw, sortName = in.OrderBy, "orderBy"
	}
	keys, err := query.ParseSort(sortName, sortRaw)
	if err != nil {
		return nil, err
	}
	if keys == nil {
		keys = v.Config.Sort
	}
	l := &listing{sc: sc, view: v}
	if v.Config.GroupBy != nil {
		if f, ok := sc.resolve(v.Config.GroupBy.Column); ok {
			l.groupBy = f
			keys = append([]query.SortKey{{Column: f.ID, Direction: "asc"}}, keys...)
		}
	}
	l.keys = keys
	// lookup displays in filters and sorts reach only the target rows the
	// caller can view
	resolve := s.viewResolve(ctx, p, sc)
	if l.order, err = query.OrderBy(sortName, keys, resolve); err != nil {
		return nil, err
	}
	if l.userFilter, err = query.ParseFilter("filter", in.Filter); err != nil {
		return nil, err
	}
	op := field.Operand{UserID: p.UserID, Today: today()}
	viewSQL, viewArgs, err := v.Config.Filter.SQL("viewId", resolve, op)
	if err != nil {
		return nil, err
	}
	userSQL, userArgs, err := l.userFilter.SQL("filter", resolve, op)
	if err != nil {
		return nil, err
	}
	visSQL, visArgs, ex, err := s.visibilityEx(ctx, p, sc)
	if err != nil {
		return nil, err
	}
	q := strings.TrimSpace(in.Q)
	if len([]rune(q)) > maxQ {
		return nil, fault.Validation("q", "q must have at most %d characters", maxQ)
	}
	l.viewSQL, l.userSQL, l.q, l.ex = viewSQL, userSQL, q, ex
	l.inView = []string{visSQL}
	l.inViewArgs = append([]any{}, visArgs...)
	if viewSQL != "" {
		l.inView = append(l.inView, viewSQL)
		l.inViewArgs = append(l.inViewArgs, viewArgs...)
	}
	l.where = append([]string{}, l.inView...)
	l.args = append([]any{}, l.inViewArgs...)
	if userSQL != "" {
		l.where = append(l.where, userSQL)
		l.args = append(l.args, userArgs...)
	}
	if q != "" {
		cond, qargs := s.qCondition(sc, q)
		l.where = append(l.where, cond)
		l.args = append(l.args, qargs...)
	}
	return l, nil
}
