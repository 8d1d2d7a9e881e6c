package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/query"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// ViewConfig is the config of a view (SPEC.md "List view").
type ViewConfig struct {
	Columns           []string         `json:"columns"`
	Sort              []query.SortKey  `json:"sort"`
	GroupBy           *ViewGroupBy     `json:"groupBy"`
	Filter            query.FilterSpec `json:"filter"`
	PageSize          int              `json:"pageSize"`
	SelectionMode     string           `json:"selectionMode"`
	ShowActionsColumn *bool            `json:"showActionsColumn"`
	HideFromSelector  bool             `json:"hideFromSelector"`
}

// ViewGroupBy names the grouping column.
type ViewGroupBy struct {
	Column string `json:"column"`
}

// ListView is one view of a list.
type ListView struct {
	ID        string     `json:"id" format:"uuid"`
	ListID    string     `json:"listId" format:"uuid"`
	Title     string     `json:"title"`
	IsDefault bool       `json:"is_default"`
	Config    ViewConfig `json:"config"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// DefaultViewConfig is the config of SPEC.md for new default views and missing keys.
func DefaultViewConfig() ViewConfig {
	t := true
	return ViewConfig{Columns: []string{}, Sort: []query.SortKey{{Column: "__created_at", Direction: "desc"}},
		Filter: query.FilterSpec{Logic: "and", Conditions: []query.FilterCondition{}}, PageSize: 50, SelectionMode: "multiple", ShowActionsColumn: &t}
}

func (s *Service) insertDefaultView(ctx context.Context, l *List, now time.Time) error {
	v := &ListView{ID: uuid.NewString(), ListID: l.ID, Title: "All items", IsDefault: true, Config: DefaultViewConfig(), CreatedAt: now, UpdatedAt: now}
	return s.st.insertView(ctx, v)
}

// checkViewConfig fills defaults and validates a config against the list's schema;
// column references are normalised to field UUIDs.
func checkViewConfig(sc *schema, raw json.RawMessage) (ViewConfig, error) {
	c := DefaultViewConfig()
	c.Sort = nil
	pageSizeGiven := false
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return c, fault.Validation("config", "config is not valid: %s", web.DescribeJSON(raw, err).Error())
		}
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(raw, &keys)
		pageSizeGiven = keys["pageSize"] != nil && string(keys["pageSize"]) != "null"
	}
	if c.Sort == nil {
		c.Sort = []query.SortKey{{Column: "__created_at", Direction: "desc"}}
	}
	if c.Columns == nil {
		c.Columns = []string{}
	}
	if c.PageSize == 0 && !pageSizeGiven {
		c.PageSize = 50
	}
	if c.PageSize < 1 || c.PageSize > 500 {
		return c, fault.Validation("config.pageSize", "pageSize must be between 1 and 500")
	}
	if c.SelectionMode == "" {
		c.SelectionMode = "multiple"
	}
	if !slices.Contains([]string{"none", "single", "multiple"}, c.SelectionMode) {
		return c, fault.Validation("config.selectionMode", "selectionMode must be none, single or multiple")
	}
	if c.ShowActionsColumn == nil {
		t := true
		c.ShowActionsColumn = &t
	}
	for i, col := range c.Columns {
		f, ok := sc.resolve(col)
		if !ok {
			return c, fault.Validation("config.columns", "column %q is not a field of this list", col)
		}
		c.Columns[i] = f.ID
	}
	if err := query.CheckSort("config.sort", c.Sort); err != nil {
		return c, err
	}
	for i, k := range c.Sort {
		f, ok := sc.resolve(k.Column)
		if !ok {
			return c, fault.Validation("config.sort", "sort column %q is not a field of this list", k.Column)
		}
		c.Sort[i].Column = f.ID
	}
	if c.GroupBy != nil {
		f, ok := sc.resolve(c.GroupBy.Column)
		if !ok {
			return c, fault.Validation("config.groupBy", "groupBy column %q is not a field of this list", c.GroupBy.Column)
		}
		c.GroupBy.Column = f.ID
	}
	if err := c.Filter.Check("config.filter"); err != nil {
		return c, err
	}
	if c.Filter.Conditions == nil {
		c.Filter.Conditions = []query.FilterCondition{}
	}
	for i, cond := range c.Filter.Conditions {
		f, ok := sc.resolve(cond.Column)
		if !ok {
			return c, fault.Validation("config.filter", "filter column %q is not a field of this list", cond.Column)
		}
		c.Filter.Conditions[i].Column = f.ID
	}
	// compile once so that bad operators/values are refused now, not at listing time
	if _, _, err := c.Filter.SQL("config.filter", sc.resolve, field.Operand{UserID: uuid.Nil.String(), Today: time.Now().UTC().Truncate(24 * time.Hour)}); err != nil {
		return c, err
	}
	return c, nil
}

// viewIndexes creates indexes for the columns a view sorts, groups or filters on.
func (s *Service) viewIndexes(ctx context.Context, sc *schema, c ViewConfig) error {
	var cols []string
	add := func(ref string) {
		if f, ok := sc.resolve(ref); ok && !byDisplay(f) {
			cols = append(cols, field.MustOf(f).SortExpr(f))
		}
	}
	for _, k := range c.Sort {
		add(k.Column)
	}
	if c.GroupBy != nil {
		add(c.GroupBy.Column)
	}
	for _, cond := range c.Filter.Conditions {
		add(cond.Column)
	}
	for _, col := range cols {
		if err := s.st.ensureIndex(ctx, sc.list, col); err != nil {
			return err
		}
	}
	// the columns the view filters on also get one narrow composite index, so
	// that counting a filtered listing (the total) is an index-only scan
	if err := s.st.tuneVacuum(ctx, sc.list); err != nil { // lists created before it was set at creation
		return err
	}
	fcols := filterColumns(sc, c.Filter)
	if err := s.st.ensureFilterIndex(ctx, sc.list, fcols); err != nil {
		return err
	}
	// the first sort key also gets an index in exactly the listing's order, so
	// that a page is read by walking it and stops after offset+limit matches
	if len(c.Sort) > 0 {
		if f, ok := sc.resolve(c.Sort[0].Column); ok && !byDisplay(f) {
			col, desc := field.MustOf(f).SortExpr(f), c.Sort[0].Direction == "desc"
			if err := s.st.ensureSortIndex(ctx, sc.list, col, desc, nil); err != nil {
				return err
			}
			if trailing := slices.DeleteFunc(slices.Clone(fcols), func(x string) bool { return x == col }); len(trailing) > 0 {
				if err := s.st.ensureSortIndex(ctx, sc.list, col, desc, trailing); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// filterColumns are the stored columns a view filter compares, ordered columns
// (numbers, dates) first so that a range on them bounds the index scan.
func filterColumns(sc *schema, f query.FilterSpec) []string {
	var ordered, other []string
	seen := map[string]bool{}
	for _, cond := range f.Conditions {
		d, ok := sc.resolve(cond.Column)
		if !ok || d.Col == 0 || d.Type == field.Person || d.Type == field.Lookup {
			continue
		}
		col := field.MustOf(d).SortExpr(d)
		if seen[col] {
			continue
		}
		seen[col] = true
		if d.Type == field.Number || d.Type == field.Date || d.Type == field.DateTime {
			ordered = append(ordered, col)
		} else {
			other = append(other, col)
		}
	}
	return append(ordered, other...)
}

// Views lists the views of a list; hideFromSelector views are shown to administrators only.
func (s *Service) Views(ctx context.Context, p *auth.Principal, listID string) ([]ListView, error) {
	if _, err := s.open(ctx, p, listID, acl.View); err != nil {
		return nil, err
	}
	vs, err := s.st.views(ctx, listID)
	if err != nil {
		return nil, err
	}
	out := []ListView{}
	for _, v := range vs {
		if v.Config.HideFromSelector && !p.IsAdmin && !v.IsDefault {
			continue
		}
		out = append(out, *v)
	}
	return out, nil
}

// ListView returns one view (view on the list).
func (s *Service) View(ctx context.Context, p *auth.Principal, listID, viewID string) (ListView, error) {
	if _, err := s.open(ctx, p, listID, acl.View); err != nil {
		return ListView{}, err
	}
	v, err := s.viewOf(ctx, listID, viewID)
	if err != nil {
		return ListView{}, err
	}
	return *v, nil
}

func (s *Service) viewOf(ctx context.Context, listID, viewID string) (*ListView, error) {
	if _, err := uuid.Parse(viewID); err != nil {
		return nil, fault.NotFound("view")
	}
	v, err := s.st.view(ctx, viewID)
	if store.IsNotFound(err) || (err == nil && v.ListID != listID) {
		return nil, fault.NotFound("view")
	}
	return v, err
}

// ViewInput is the body of view create and update.
type ViewInput struct {
	Title     *string
	IsDefault *bool
	Config    json.RawMessage
}

// CreateView adds a view (administrators).
func (s *Service) CreateView(ctx context.Context, p *auth.Principal, listID string, in ViewInput) (ListView, error) {
	if !p.IsAdmin {
		return ListView{}, fault.Forbidden("only administrators manage views")
	}
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return ListView{}, err
	}
	title := "New view" // SPEC.md's view has no title: a client may leave it out
	if in.Title != nil {
		title = *in.Title
	}
	if title, err = checkTitle("title", title, 200); err != nil {
		return ListView{}, err
	}
	c, err := checkViewConfig(sc, in.Config)
	if err != nil {
		return ListView{}, err
	}
	now := s.now().UTC()
	v := &ListView{ID: uuid.NewString(), ListID: listID, Title: title, Config: c, CreatedAt: now, UpdatedAt: now,
		IsDefault: in.IsDefault != nil && *in.IsDefault}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if v.IsDefault {
			if err := s.st.clearDefaultView(ctx, listID); err != nil {
				return err
			}
		}
		if err := s.st.insertView(ctx, v); err != nil {
			return err
		}
		return s.viewIndexes(ctx, sc, c)
	})
	return *v, err
}

// UpdateView changes a view (administrators). config merges by top-level key:
// the keys given replace the stored ones (null resets a key to its default),
// the others stay.
func (s *Service) UpdateView(ctx context.Context, p *auth.Principal, listID, viewID string, in ViewInput) (ListView, error) {
	if !p.IsAdmin {
		return ListView{}, fault.Forbidden("only administrators manage views")
	}
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return ListView{}, err
	}
	v, err := s.viewOf(ctx, listID, viewID)
	if err != nil {
		return ListView{}, err
	}
	if in.Title != nil {
		if v.Title, err = checkTitle("title", *in.Title, 200); err != nil {
			return ListView{}, err
		}
	}
	if len(in.Config) > 0 && string(in.Config) != "null" {
		merged, err := mergeConfig(v.Config, in.Config)
		if err != nil {
			return ListView{}, err
		}
		if v.Config, err = checkViewConfig(sc, merged); err != nil {
			return ListView{}, err
		}
	}
	if in.IsDefault != nil && !*in.IsDefault && v.IsDefault {
		return ListView{}, fault.Validation("isDefault", "make another view the default instead")
	}
	v.UpdatedAt = s.now().UTC()
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if in.IsDefault != nil && *in.IsDefault && !v.IsDefault {
			if err := s.st.clearDefaultView(ctx, listID); err != nil {
				return err
			}
			v.IsDefault = true
		}
		if err := s.st.updateView(ctx, v); err != nil {
			return err
		}
		return s.viewIndexes(ctx, sc, v.Config)
	})
	return *v, err
}

// DeleteView removes a view (administrators); the default view cannot be deleted.
func (s *Service) DeleteView(ctx context.Context, p *auth.Principal, listID, viewID string) error {
	if !p.IsAdmin {
		return fault.Forbidden("only administrators manage views")
	}
	if _, err := s.open(ctx, p, listID, acl.View); err != nil {
		return err
	}
	v, err := s.viewOf(ctx, listID, viewID)
	if err != nil {
		return err
	}
	if v.IsDefault {
		return fault.Validation("viewId", "the default view cannot be deleted")
	}
	return s.st.deleteView(ctx, v.ID)
}

// dropFieldFromViews removes references to a deleted field from every view.
func (s *Service) dropFieldFromViews(ctx context.Context, listID, fieldID string) error {
	vs, err := s.st.views(ctx, listID)
	if err != nil {
		return err
	}
	for _, v := range vs {
		c := v.Config
		changed := false
		c.Columns = slices.DeleteFunc(c.Columns, func(x string) bool { changed = changed || x == fieldID; return x == fieldID })
		c.Sort = slices.DeleteFunc(c.Sort, func(x query.SortKey) bool {
			changed = changed || x.Column == fieldID
			return x.Column == fieldID
		})
		c.Filter.Conditions = slices.DeleteFunc(c.Filter.Conditions, func(x query.FilterCondition) bool {
			changed = changed || x.Column == fieldID
			return x.Column == fieldID
		})
		if c.GroupBy != nil && c.GroupBy.Column == fieldID {
			c.GroupBy, changed = nil, true
		}
		if changed {
			v.Config = c
			if err := s.st.updateView(ctx, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// store

const viewColumns = "id, list_id, title, is_default, config, created_at, updated_at"

func scanView(r scanner) (*ListView, error) {
	var v ListView
	var cfg string
	if err := r.Scan(&v.ID, &v.ListID, &v.Title, &v.IsDefault, &cfg, &v.CreatedAt, &v.UpdatedAt); err != nil {
		return nil, err
	}
	v.Config = DefaultViewConfig()
	_ = json.Unmarshal([]byte(cfg), &v.Config)
	v.CreatedAt, v.UpdatedAt = v.CreatedAt.UTC(), v.UpdatedAt.UTC()
	return &v, nil
}

func (s *Store) views(ctx context.Context, listID string) ([]*ListView, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+viewColumns+" FROM list_views WHERE list_id = ? ORDER BY is_default DESC, created_at, id", listID)
	if err != nil {
		return nil, fmt.Errorf("views: %w", err)
	}
	defer rows.Close()
	var out []*ListView
	for rows.Next() {
		v, err := scanView(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *Store) view(ctx context.Context, id string) (*ListView, error) {
	return scanView(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+viewColumns+" FROM list_views WHERE id = ?", id))
}

func (s *Store) defaultView(ctx context.Context, listID string) (*ListView, error) {
	return scanView(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+viewColumns+" FROM list_views WHERE list_id = ? ORDER BY is_default DESC, created_at LIMIT 1", listID))
}

func (s *Store) insertView(ctx context.Context, v *ListView) error {
	cfg, _ := json.Marshal(v.Config)
	_, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO list_views ("+viewColumns+") VALUES (?, ?, ?, ?, ?, ?, ?)",
		v.ID, v.ListID, v.Title, v.IsDefault, string(cfg), v.CreatedAt, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert view: %w", err)
	}
	return nil
}

func (s *Store) updateView(ctx context.Context, v *ListView) error {
	cfg, _ := json.Marshal(v.Config)
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE list_views SET title = ?, is_default = ?, config = ?, updated_at = ? WHERE id = ?",
		v.Title, v.IsDefault, string(cfg), v.UpdatedAt, v.ID)
	if err != nil {
		return fmt.Errorf("update view: %w", err)
	}
	return nil
}

func (s *Store) clearDefaultView(ctx context.Context, listID string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE list_views SET is_default = ? WHERE list_id = ?", false, listID)
	return err
}

func (s *Store) deleteView(ctx context.Context, id string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM list_views WHERE id = ?", id)
	return err
}

// mergeConfig lays the top-level keys of patch over the stored config.
func mergeConfig(cur ViewConfig, patch json.RawMessage) (json.RawMessage, error) {
	var over map[string]json.RawMessage
	if err := json.Unmarshal(patch, &over); err != nil {
		return nil, fault.Validation("config", "config must be an object")
	}
	stored, err := json.Marshal(cur)
	if err != nil {
		return nil, fmt.Errorf("encode view config: %w", err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal(stored, &base); err != nil {
		return nil, fmt.Errorf("decode view config: %w", err)
	}
	for k, v := range over {
		if string(v) == "null" {
			delete(base, k)
			continue
		}
		base[k] = v
	}
	return json.Marshal(base)
}
