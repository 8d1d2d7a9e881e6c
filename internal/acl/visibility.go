package acl

import (
	"context"
	"fmt"
	"strings"

	"coreportal/internal/auth"
)

// Visibility compiles the chain rule of Level for the rows of one kind
// below one container (the items of a list, the files of a folder or of a
// whole library) and one caller, so that listings filter in SQL and agree
// with Level row by row.
//
// The rule: a row is visible when the nearest decisive object on its chain
// (the row itself or an object between it and the container) is visible,
// or, when there is none, when the caller can view the container. Decisive
// objects are the isolated ones (visible when the caller holds a record on
// them: the chain stops there) and those holding a record of the caller
// (always visible). They are few, so the rule becomes two short id lists.
type Visibility struct {
	level   Level
	admin   bool
	subtree bool
	kind    Type
	// decisive objects below the container: true when visible
	decisive map[string]bool
	shown    []string // decisive and visible
	hidden   []string // decisive and hidden
}

// Depth tells how far below the container a Visibility reaches.
type Depth int

const (
	// Children are the rows directly under the container.
	Children Depth = iota
	// Subtree are the rows at any depth under the container (files in folders).
	Subtree
)

// Visibility returns which rows of kind below container the caller may view.
// A nil caller sees nothing; administrators see every row.
func (e *Engine) Visibility(ctx context.Context, p *auth.Principal, kind Type, container Ref, depth Depth) (*Visibility, error) {
	lvl, err := e.Level(ctx, p, container)
	if err != nil {
		return nil, err
	}
	v := &Visibility{level: lvl, kind: kind, subtree: depth == Subtree, decisive: map[string]bool{}}
	if p == nil {
		return v, nil
	}
	if p.IsAdmin {
		v.admin = true
		return v, nil
	}
	var deny, allow []string
	if depth == Subtree {
		deny, allow, err = e.st.decisiveBelow(ctx, container.ID, kind, p.UserID)
	} else {
		if deny, err = e.st.denied(ctx, container.ID, kind, p.UserID); err == nil {
			allow, err = e.st.allowed(ctx, container.ID, kind, p.UserID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("visibility of %s under %s: %w", kind, container.ID, err)
	}
	for _, id := range deny {
		v.decisive[strings.ToLower(id)] = false
	}
	for _, id := range allow {
		v.decisive[strings.ToLower(id)] = true
	}
	for id, ok := range v.decisive {
		if ok {
			v.shown = append(v.shown, id)
		} else {
			v.hidden = append(v.hidden, id)
		}
	}
	return v, nil
}

// Level is the caller's level on the container.
func (v *Visibility) Level() Level { return v.level }

// All reports whether every row is visible (administrators, or view on the
// container with no hidden exception).
func (v *Visibility) All() bool { return v.admin || v.level >= View && len(v.hidden) == 0 }

// None reports whether no row is visible.
func (v *Visibility) None() bool { return !v.admin && v.level < View && len(v.shown) == 0 }

// Hidden are the decisive rows hidden from a caller who can view the
// container (nil otherwise); with Children depth, exactly the rows hidden.
func (v *Visibility) Hidden() []string {
	if v.admin || v.level < View {
		return nil
	}
	return v.hidden
}

// Decisive reports whether a row's visibility differs from the container's
// default (it is in one of the exception lists).
func (v *Visibility) Decisive(id string) bool {
	_, ok := v.decisive[strings.ToLower(id)]
	return ok
}

// Sees reports whether the caller may view a row directly under the
// container (Children depth; for Subtree use the SQL condition).
func (v *Visibility) Sees(id string) bool {
	if v.admin {
		return true
	}
	if ok, found := v.decisive[strings.ToLower(id)]; found {
		return ok
	}
	return v.level >= View
}

// Condition is an SQL boolean expression with its arguments (placeholders ?).
type Condition struct {
	SQL  string
	Args []any
}

// Column tells Condition how a caller's table names and stores the row's
// resource id. With Literal set, ids are written into the SQL as literals
// (for conditions that must stand without arguments) and Value is unused.
type Column struct {
	Name    string                                // SQL expression of the row's id, e.g. "lk.guid"
	Value   func(id string) any                   // argument for an id (nil: the id string)
	Literal func(id string) (lit string, ok bool) // SQL literal for an id
	// Registered is true when Name compares with acl_objects.id (same type):
	// needed by Subtree visibility, which follows the registry's parents.
	Registered bool
}

// Condition is the SQL condition on col that keeps the visible rows. An id
// that cannot be written as a literal hides every row (the safe side).
func (v *Visibility) Condition(col Column) (Condition, error) {
	switch {
	case v.admin || v.All():
		return Condition{SQL: "1 = 1"}, nil
	case v.None():
		return Condition{SQL: "1 = 0"}, nil
	}
	var c cond
	c.col = col
	if v.subtree {
		if !col.Registered {
			return Condition{}, fmt.Errorf("subtree visibility needs a column of registered ids, not %q", col.Name)
		}
		return c.subtree(v)
	}
	if v.level >= View {
		c.add(col.Name+" NOT IN (", v.hidden, ")")
		if len(v.shown) > 0 {
			c.add(" OR "+col.Name+" IN (", v.shown, ")")
			c.wrap()
		}
	} else {
		c.add(col.Name+" IN (", v.shown, ")")
	}
	return c.done()
}

// cond assembles a Condition from id lists.
type cond struct {
	col  Column
	sql  strings.Builder
	args []any
	bad  bool
}

func (c *cond) list(ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if c.col.Literal != nil {
			lit, ok := c.col.Literal(id)
			if !ok {
				c.bad = true
			}
			parts[i] = lit
			continue
		}
		parts[i] = "?"
		if c.col.Value != nil {
			c.args = append(c.args, c.col.Value(id))
		} else {
			c.args = append(c.args, id)
		}
	}
	return strings.Join(parts, ", ")
}

func (c *cond) add(prefix string, ids []string, suffix string) {
	c.sql.WriteString(prefix + c.list(ids) + suffix)
}

func (c *cond) wrap() {
	s := c.sql.String()
	c.sql.Reset()
	c.sql.WriteString("(" + s + ")")
}

func (c *cond) done() (Condition, error) {
	if c.bad {
		return Condition{SQL: "1 = 0"}, nil
	}
	return Condition{SQL: c.sql.String(), Args: c.args}, nil
}

// subtree: the rows below a decisive object take its visibility down to the
// next decisive object, following the parents in acl_objects.
func (c *cond) subtree(v *Visibility) (Condition, error) {
	all := append(append([]string{}, v.hidden...), v.shown...)
	from, op := v.shown, " IN "
	if v.level >= View {
		from, op = v.hidden, " NOT IN "
	}
	c.sql.WriteString(c.col.Name + op + "(WITH RECURSIVE reach(id, depth) AS (SELECT id, 0 FROM acl_objects WHERE id IN (")
	c.sql.WriteString(c.list(from))
	c.sql.WriteString(") UNION ALL SELECT o.id, r.depth + 1 FROM acl_objects o JOIN reach r ON o.parent_id = r.id WHERE o.type = '")
	c.sql.WriteString(string(v.kind) + "' AND r.depth < 64 AND o.id NOT IN (")
	c.sql.WriteString(c.list(all))
	c.sql.WriteString(")) SELECT id FROM reach)")
	return c.done()
}
