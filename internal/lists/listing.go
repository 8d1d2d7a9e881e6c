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
