package lists

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/query"
	"coreportal/internal/store"
)

// ListParams are the listing parameters of GET …/items.
type ListParams struct {
	Page    int
	Limit   int // 0 = the view's pageSize
	ViewID  string
	Sort    string
	OrderBy string
	Filter  string
	Q       string
}

// ItemGroup is one group of a grouped view.
type ItemGroup struct {
	Value any `json:"value"`
	Count int `json:"count"`
}

// ListMeta is the meta block of an item listing.
type ListMeta struct {
	Page        int          `json:"page"`
	Limit       int          `json:"limit"`
	Total       int          `json:"total"`
	TotalPages  int          `json:"totalPages"`
	TotalInView int          `json:"totalInView"`
	Fields      []FieldOut   `json:"fields"`
	Groups      *[]ItemGroup `json:"groups,omitempty"` // grouped views only ([] when nothing matches)
	View        ListView     `json:"view"`
}

const (
	maxQ    = 200
	maxPage = 1_000_000 // as web.PageQuery: (page-1)*limit stays far from overflow
)

// exceptions are the items whose level may differ from the list's level.
type exceptions struct {
	listLevel acl.Level
	vis       *acl.Visibility
	// hidden are the items a caller with view on the list may not view; nil
	// when the list level is below view
	hidden []string
}

// special reports whether an item's level may differ from the list's.
func (ex *exceptions) special(guid string) bool { return ex.vis.Decisive(guid) }

// visibility is the SQL condition of the items the caller may view.
func (s *Service) visibility(ctx context.Context, p *auth.Principal, sc *schema) (string, []any, error) {
	cond, args, _, err := s.visibilityEx(ctx, p, sc)
	return cond, args, err
}

// guidColumn is the guid column of an item table for acl conditions.
func (s *Service) guidColumn(name string) acl.Column {
	d := s.db.Dialect
	return acl.Column{Name: name, Value: func(id string) any { return idArg(d, id) }}
}

func (s *Service) visibilityEx(ctx context.Context, p *auth.Principal, sc *schema) (string, []any, *exceptions, error) {
	vis, err := s.acl.Visibility(ctx, p, acl.ListItem, listRef(sc.list.ID), acl.Children)
	if err != nil {
		return "", nil, nil, err
	}
	c, err := vis.Condition(s.guidColumn("guid"))
	if err != nil {
		return "", nil, nil, err
	}
	return c.SQL, c.Args, &exceptions{listLevel: vis.Level(), vis: vis, hidden: vis.Hidden()}, nil
}

func today() time.Time { return time.Now().UTC().Truncate(24 * time.Hour) }

// ListItems is the paged, filtered, sorted listing; everything happens in SQL.
func (s *Service) ListItems(ctx context.Context, p *auth.Principal, listID string, in ListParams) ([]ItemOut, ListMeta, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return nil, ListMeta{}, err
	}
	if in.Page > maxPage {
		return nil, ListMeta{}, fault.Validation("page", "page must be at most %d", maxPage)
	}
	l, err := s.listingOf(ctx, p, sc, in)
	if err != nil {
		return nil, ListMeta{}, err
	}
	v, keys, groupBy, order, userFilter, ex := l.view, l.keys, l.groupBy, l.order, l.userFilter, l.ex
	viewSQL, userSQL, q := l.viewSQL, l.userSQL, l.q
	inView, inViewArgs, where, args := l.inView, l.inViewArgs, l.where, l.args
	page := max(in.Page, 1)
	limit := in.Limit
	if limit < 1 || limit > 500 {
		limit = v.Config.PageSize
	}
	table := safeIdent(sc.list.Table)
	whereSQL := strings.Join(where, " AND ")
	filtered := userSQL != "" || q != ""
	// keys carry the exact condition, so a change of the caller's rights (other
	// visibility lists) never reads an old count
	inViewSQL := strings.Join(inView, " AND ")
	viewKey := countKey{list: listID, view: v.ID, user: p.UserID, filter: digest(inViewSQL, inViewArgs)}
	totalKey := countKey{list: listID, view: v.ID, user: p.UserID, filter: digest(whereSQL, args)}
	gen := s.counts.generation(listID)
	// One pass where a pass is needed: a count that is not cached and has the
	// page's own condition (the total, or totalInView without a user filter)
	// comes from the page query itself (count(*) OVER ()), unless (PostgreSQL)
	// an index delivers the listing order: then the page is a walk of that index that
	// stops after offset+limit matches and the count is a query of its own
	// (which can use an index-only scan), run concurrently outside
	// transactions. Counts are kept a few seconds (dropped on item writes)
	// for the next pages, which then read only their page.
	var numbers []int64
	total, totalInView := -1, -1
	var inPage *int // the count the page query delivers
	if filtered {
		if n, ok := s.counts.get(totalKey); ok {
			total = n
		} else {
			inPage = &total
		}
	}
	var tasks []func(context.Context) error
	counted := func(dst *int, key countKey, where string, args []any) {
		if n, ok := s.counts.get(key); ok {
			*dst = n
			return
		}
		tasks = append(tasks, func(ctx context.Context) (err error) {
			*dst, err = s.count(ctx, table, where, args)
			return err
		})
	}
	// A view without a filter shows a caller with view on the list every item
	// but the hidden ones: the list's count is kept by the item table's
	// triggers, the hidden ones that exist are counted by their guids.
	if ex.listLevel >= acl.View && viewSQL == "" {
		tasks = append(tasks, func(ctx context.Context) error {
			n, err := s.itemCount(ctx, sc.list)
			if err != nil {
				return err
			}
			hidden := 0
			if len(ex.hidden) > 0 {
				args := idArgs(s.db.Dialect, ex.hidden)
				if hidden, err = s.count(ctx, table, "guid IN ("+store.Placeholders(len(args))+")", args); err != nil {
					return err
				}
			}
			totalInView = n - hidden
			return nil
		})
	} else if !filtered {
		if n, ok := s.counts.get(viewKey); ok {
			totalInView = n
		} else {
			inPage = &totalInView
		}
	} else {
		counted(&totalInView, viewKey, inViewSQL, inViewArgs)
	}
	// Which indexes count as delivering the order was measured (bench/lists,
	// 100,000 items): PostgreSQL walks any sort index for the page (a window
	// over that walk fetches every match in index order: 550-650 ms against
	// 80-170 ms for page and count apart). SQLite only gains from a view's
	// indexes (sort index with the filter columns trailing plus the covering
	// filter index: count 4 ms + page 14 ms against 53 ms as one window
	// query); with an ad-hoc sort index its planner still reads the matches
	// by a filter index and sorts them in both queries (126 ms of CPU against
	// 58 ms as one window query).
	indexed, pin := s.orderIndexed(ctx, sc, keys, userFilter)
	window := inPage != nil && !indexed
	if inPage != nil && !window {
		dst := inPage
		tasks = append(tasks, func(ctx context.Context) (err error) {
			*dst, err = s.count(ctx, table, whereSQL, args)
			return err
		})
	}
	tasks = append(tasks, func(ctx context.Context) error {
		var err error
		var n int
		numbers, n, err = s.pageNumbers(ctx, table, pin, whereSQL, order, args, limit, (page-1)*limit, window)
		if window {
			*inPage = n
		}
		return err
	})
	if err := runAll(ctx, tasks); err != nil {
		return nil, ListMeta{}, err
	}
	if window && *inPage < 0 { // a page past the end carries no count
		if *inPage, err = s.count(ctx, table, whereSQL, args); err != nil {
			return nil, ListMeta{}, err
		}
	}
	if !filtered {
		total = totalInView
	}
	s.adhoc.want(ctx, sc.list, totalInView, wantedIndexes(sc, keys, userFilter, s.db.Dialect == store.Postgres))
	if !store.InTransaction(ctx) { // a transaction may count its own uncommitted writes
		s.counts.put(viewKey, totalInView, gen)
		s.counts.put(totalKey, total, gen)
	}
	items, err := s.st.itemsByNumber(ctx, sc.list, sc.fields, numbers)
	if err != nil {
		return nil, ListMeta{}, err
	}
	meta := ListMeta{Page: page, Limit: limit, Total: total, TotalPages: (total + limit - 1) / limit, TotalInView: totalInView,
		Fields: fieldsOut(sc.fields), View: *v}
	if groupBy != nil {
		groups, err := s.groups(ctx, table, groupBy, whereSQL, args)
		if err != nil {
			return nil, ListMeta{}, err
		}
		meta.Groups = &groups
	}
	out, err := s.presentAll(ctx, p, items, ex)
	return out, meta, err
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// digest names a listing condition in the count cache.
func digest(where string, args []any) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%#v", where, args)
	return hex.EncodeToString(h.Sum(nil))
}

// runAll runs the read tasks concurrently on the pool, or one after the other
// inside a transaction (one connection). The first error wins.
func runAll(ctx context.Context, tasks []func(context.Context) error) error {
	if store.InTransaction(ctx) || len(tasks) == 1 {
		for _, t := range tasks {
			if err := t(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = t(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// planned marks a listing query for planning with its actual arguments
// (store.Dialect.Planned): a generic plan ignores how selective the filter
// values are (a bitmap scan and sort over a million rows instead of a walk
// of the sort index, 300-900 ms instead of 1-10 ms).
func (s *Service) planned(args []any) []any { return s.db.Dialect.Planned(args) }

// pageNumbers returns the item numbers of one page in listing order and,
// with withCount, the number of rows matching where (-1 when the page is
// empty: past the end nothing carries the count). pin names an index the
// page must walk (SQLite only, see orderIndexed); should it be gone, the
// query runs again without it.
func (s *Service) pageNumbers(ctx context.Context, table, pin, where, order string, args []any, limit, offset int, withCount bool) ([]int64, int, error) {
	sel := "SELECT id"
	if withCount {
		sel += ", count(*) OVER ()"
	}
	from := table
	if pin != "" {
		from += " INDEXED BY " + safeIdent(pin)
	}
	q := func(from string) (*sql.Rows, error) {
		return s.db.Q(ctx).QueryContext(ctx, sel+" FROM "+from+" WHERE "+where+" ORDER BY "+order+" LIMIT ? OFFSET ?",
			s.planned(append(append([]any{}, args...), limit, offset))...)
	}
	rows, err := q(from)
	if err != nil && pin != "" && ctx.Err() == nil {
		s.adhoc.forget(table) // dropped meanwhile: learn the table's indexes again
		rows, err = q(table)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	var numbers []int64
	count := -1
	for rows.Next() {
		var n int64
		dest := []any{&n}
		if withCount {
			dest = append(dest, &count)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, 0, fmt.Errorf("list items: %w", err)
		}
		numbers = append(numbers, n)
	}
	if withCount && count < 0 && offset == 0 {
		count = 0
	}
	return numbers, count, rows.Err()
}

// orderIndexed reports whether an index delivers the listing order (its first
// sort key): the item number, a sort index made for a view, on PostgreSQL one
// built ad hoc, on SQLite one built ad hoc with the user filter's columns
// trailing (its planner walks the plain one only without a filter). pin is,
// on SQLite, the sort index with the filter's columns trailing (a view's or
// an ad-hoc one) that the page query must walk: once ANALYZE has run, SQLite's
// planner prefers a range scan of a filter index plus a sort of every match
// (120 ms on 100,000 items) to this index-only walk that stops after
// offset+limit matches (0.5-4 ms), so the plan is not left to statistics.
func (s *Service) orderIndexed(ctx context.Context, sc *schema, keys []query.SortKey, user query.FilterSpec) (indexed bool, pin string) {
	if len(keys) == 0 {
		return true, "" // id DESC: the primary key
	}
	f, ok := sc.resolve(keys[0].Column)
	if !ok || byDisplay(f) {
		return false, ""
	}
	col := field.MustOf(f).SortExpr(f)
	if col == "id" {
		return true, ""
	}
	if !indexable(col) { // e.g. the creator's name: no index can deliver it
		return false, ""
	}
	desc := keys[0].Direction == "desc"
	sqlite := s.db.Dialect != store.Postgres
	if user.Logic != "or" {
		for _, c := range compositeWanted(sc.list, col, desc, filterColumns(sc, user), !sqlite) {
			if !c.composite {
				continue
			}
			if name := s.adhoc.which(ctx, sc.list.Table, c); name != "" {
				if sqlite {
					return true, name
				}
				return true, ""
			}
		}
	}
	w := sortIndexWanted(sc.list, col, desc)
	if sqlite {
		w.name = "" // only the view's
	}
	return s.adhoc.has(ctx, sc.list.Table, w), ""
}

func (s *Service) count(ctx context.Context, table, where string, args []any) (int, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE "+where, s.planned(args)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count items: %w", err)
	}
	return n, nil
}

const maxGroups = 500

func (s *Service) groups(ctx context.Context, table string, f *field.Def, where string, args []any) ([]ItemGroup, error) {
	col := safeIdent(f.Column())
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+col+", count(*) FROM "+table+" WHERE "+where+" GROUP BY "+col+
		" ORDER BY ("+col+" IS NULL), "+col+" LIMIT ?", append(args, maxGroups)...)
	if err != nil {
		return nil, fmt.Errorf("group items: %w", err)
	}
	defer rows.Close()
	out := []ItemGroup{}
	for rows.Next() {
		var raw any
		var n int
		if err := rows.Scan(&raw, &n); err != nil {
			return nil, err
		}
		var v any = raw
		if f.Col != 0 || f.Kind != nil {
			v = field.MustOf(f).Decode(f, raw)
		}
		out = append(out, ItemGroup{Value: v, Count: n})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if f.Type == field.Person || f.Type == field.Lookup {
		values := make([]any, len(out))
		for i, g := range out {
			values[i] = g.Value
		}
		if err := s.fillValueDisplays(ctx, f, values); err != nil {
			return nil, err
		}
		for i := range out {
			out[i].Value = values[i]
		}
	}
	return out, nil
}

// presentAll adds names and permission flags; an inheriting item without
// exceptions for the caller has exactly the list's level, so only exceptional
// items ask the ACL engine.
func (s *Service) presentAll(ctx context.Context, p *auth.Principal, items []*Item, ex *exceptions) ([]ItemOut, error) {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.UpdatedBy
	}
	names, err := s.st.userNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ItemOut, 0, len(items))
	for _, it := range items {
		it.UpdatedName = names[it.UpdatedBy]
		if ex != nil && it.Inherits && !ex.special(it.GUID) {
			out = append(out, it.out(flags(p, ex.listLevel)))
			continue
		}
		perm, err := s.permissions(ctx, p, it)
		if err != nil {
			return nil, err
		}
		out = append(out, it.out(perm))
	}
	return out, nil
}
