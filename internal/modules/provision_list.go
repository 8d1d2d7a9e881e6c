package modules

import (
	"context"

	"coreportal/internal/lists"
)

// createList creates a list with its leading fields in one step: every
// field up to the first one whose lookup names the list itself (that one
// needs the list to exist). The lists service then builds the item table
// with all their columns at once; on SQLite one ALTER TABLE per field
// re-parses the whole schema and made a large module hold the portal's
// single writer for minutes. listParts adds the remaining fields one by one.
func (c *creation) createList(ctx context.Context, r *Resource, node, path string) (string, error) {
	n := r.leadingFields()
	ins := make([]lists.FieldInput, n)
	for j := range n {
		in, err := c.fieldInput(r, j)
		if err != nil {
			return "", err
		}
		ins[j] = in
	}
	l, err := c.svc.Lists.Create(ctx, c.p, lists.NewList{NodeID: node, Title: r.Title, Slug: r.Slug, Description: r.Description, Fields: ins})
	if err != nil {
		return "", prefixed(err, path)
	}
	c.log("created %s %s (%s)", r.Type, r.Key, l.ID)
	for _, f := range l.Fields {
		if r.declares(f.InternalName) {
			key := r.Key + ".fields." + f.InternalName
			c.rmap[key] = f.ID
			c.log("created field %s (%s)", key, f.ID)
		}
	}
	return l.ID, nil
}

// leadingFields is how many fields come before the first one that looks up
// its own list (or a field of it).
func (r *Resource) leadingFields() int {
	n := len(r.Fields)
	for _, l := range r.lookups {
		if l.target() == r.Key && l.field < n {
			n = l.field
		}
	}
	return n
}

// fieldInput is field j of a list resource as the lists service takes it,
// its lookup references resolved.
func (c *creation) fieldInput(r *Resource, j int) (lists.FieldInput, error) {
	settings, err := c.withLookups(r, j)
	if err != nil {
		return lists.FieldInput{}, err
	}
	f := r.Fields[j]
	name, title, typ, req := f.InternalName, f.Title, f.FieldType, f.IsRequired
	return lists.FieldInput{InternalName: &name, Title: &title, FieldType: &typ, IsRequired: &req, Settings: settings}, nil
}

// checkAdded refuses an installation that would add more than
// maxAddedFields fields one by one: to lists the resource map holds already
// (an upgrade) or after a self-lookup of a new list. Nothing of the module
// is written yet.
func (c *creation) checkAdded() error {
	n := 0
	for i := range c.m.Resources {
		r := &c.m.Resources[i]
		if r.Type != TypeList {
			continue
		}
		first := 0
		if _, ok := c.rmap[r.Key]; !ok {
			first = r.leadingFields()
		}
		for _, f := range r.Fields[first:] {
			if _, ok := c.rmap[r.Key+".fields."+f.InternalName]; !ok {
				n++
			}
		}
	}
	if n > maxAddedFields {
		return invalid("resources", "this installation would add %d fields to existing lists (or after a field that looks up its own list); at most %d: add them over several versions", n, maxAddedFields)
	}
	return nil
}
