package modules

import (
	"context"
	"encoding/json"
	"fmt"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/groups"
	"coreportal/internal/libraries"
	"coreportal/internal/lists"
	"coreportal/internal/menu"
	"coreportal/internal/nodes"
	"coreportal/internal/pages"
)

// Services are the domain services a module's resources are created
// through, so that their validation, permission registry, search index and
// events apply exactly as for the REST API. Each joins the installation's
// transaction (store.InTx nests).
type Services struct {
	Nodes     *nodes.Service
	Lists     *lists.Service
	Libraries *libraries.Service
	Pages     *pages.Service
	Groups    *groups.Service
	Menu      *menu.Service
}

// creation is the state of one module's installation.
type creation struct {
	svc     Services
	p       *auth.Principal
	m       *Manifest
	rmap    map[string]string  // this module's resource map (grows)
	records map[string]*Record // installed modules, for modules.<key>.<path>
	log     func(format string, args ...any)
}

// createAll creates, in dependency order, every resource whose key the
// resource map does not hold yet (an upgrade keeps what exists and adds
// what the new version declares), and the missing fields and views of lists.
func (c *creation) createAll(ctx context.Context) error {
	if err := c.checkAdded(); err != nil {
		return err
	}
	for _, i := range c.m.order {
		r := &c.m.Resources[i]
		path := fmt.Sprintf("resources[%d]", i)
		fresh := false
		if id, ok := c.rmap[r.Key]; ok {
			c.log("kept %s %s (%s)", r.Type, r.Key, id)
		} else {
			fresh = true
			id, err := c.create(ctx, r, path)
			if err != nil {
				return fmt.Errorf("module %s: create %s: %w", c.m.ID, r.Key, gone(err, path))
			}
			c.rmap[r.Key] = id
			if r.Type != TypeList { // createList logs the list before its fields
				c.log("created %s %s (%s)", r.Type, r.Key, id)
			}
		}
		if r.Type == TypeList {
			if err := c.listParts(ctx, r, path, fresh); err != nil {
				return fmt.Errorf("module %s: %s: %w", c.m.ID, r.Key, gone(err, path))
			}
		}
	}
	return nil
}

// gone turns a NotFound met while installing into a 409 naming the place:
// a resource this module (or one it requires) created earlier was deleted
// since, so the installation cannot build on it until it is restored from
// the recycle bin (the resource map keeps its id).
func gone(err error, path string) error {
	fe, ok := fault.As(err)
	if !ok || fe.Code != fault.CodeNotFound {
		return err
	}
	return fault.Conflict("%s: a resource installed earlier that this installation builds on no longer exists (%s); restore it from the recycle bin, then install again", path, fe.Message).
		With("field", path)
}

// resolve turns a $ref into the uuid it names.
func (c *creation) resolve(ref *Ref, path string) (string, error) {
	if ref == nil {
		return "", nil
	}
	if dep, sub, ok := c.m.splitModuleRef(ref.Ref); ok {
		rec := c.records[dep]
		if rec == nil {
			return "", invalid(path, "%q: module %s is not installed", ref.Ref, dep)
		}
		id, ok := rec.ResourceMap[sub]
		if !ok {
			return "", invalid(path, "%q: module %s %s has no resource %q", ref.Ref, dep, rec.Version, sub)
		}
		return id, nil
	}
	id, ok := c.rmap[ref.Ref]
	if !ok {
		return "", invalid(path, "%q is not created yet", ref.Ref)
	}
	return id, nil
}

func (c *creation) create(ctx context.Context, r *Resource, path string) (string, error) {
	ref, refPath := r.refOf(path)
	target, err := c.resolve(ref, refPath)
	if err != nil {
		return "", err
	}
	switch r.Type {
	case TypeNode:
		n, err := c.svc.Nodes.Create(ctx, c.p, nodes.NewNode{ParentID: target, Slug: r.Slug, Title: r.Title, Description: r.Description, SortOrder: r.SortOrder})
		if err != nil {
			return "", err
		}
		return n.ID, nil
	case TypeList:
		return c.createList(ctx, r, target, path)
	case TypeLibrary:
		l, err := c.svc.Libraries.Create(ctx, c.p, libraries.NewLibrary{NodeID: target, Title: r.Title, Slug: r.Slug, Description: r.Description})
		return l.ID, err
	case TypePage:
		pg, err := c.svc.Pages.Create(ctx, c.p, pages.NewPage{NodeID: target, Slug: r.Slug, Title: r.Title, Content: r.Content})
		if err != nil {
			return "", err
		}
		return pg.ID, nil
	case TypeGroup:
		g, err := c.svc.Groups.Create(ctx, r.Name, r.Description)
		if err != nil {
			return "", err
		}
		return g.ID, nil
	case TypeMenu:
		it, err := c.svc.Menu.AddItem(ctx, c.p, target, menu.NewItem{Title: r.Title, Link: r.Link, OpenInNewTab: r.NewTab})
		if err != nil {
			return "", prefixed(err, path)
		}
		return it.ID, nil
	}
	return "", fault.Validation(path+".type", "unknown type %q", r.Type)
}

// listParts adds the fields and views of a list that its resource map
// does not hold yet: <list key>.fields.<internalName>, <list key>.views.<key>.
// Views without a key are created with the list only (fresh).
func (c *creation) listParts(ctx context.Context, r *Resource, path string, fresh bool) error {
	listID := c.rmap[r.Key]
	for j, f := range r.Fields {
		key := r.Key + ".fields." + f.InternalName
		if _, ok := c.rmap[key]; ok {
			continue
		}
		in, err := c.fieldInput(r, j)
		if err != nil {
			return err
		}
		out, err := c.svc.Lists.CreateField(ctx, c.p, listID, in)
		if err != nil {
			return prefixed(err, fmt.Sprintf("%s.fields[%d]", path, j))
		}
		c.rmap[key] = out.ID
		c.log("created field %s (%s)", key, out.ID)
	}
	for j, v := range r.Views {
		key := r.Key + ".views." + v.Key
		if _, ok := c.rmap[key]; (ok && v.Key != "") || (v.Key == "" && !fresh) {
			continue
		}
		title, def := v.Title, v.IsDefault
		cfg := v.Config
		if len(cfg) == 0 {
			cfg = json.RawMessage("null")
		}
		out, err := c.svc.Lists.CreateView(ctx, c.p, listID, lists.ViewInput{Title: &title, IsDefault: &def, Config: cfg})
		if err != nil {
			return prefixed(err, fmt.Sprintf("%s.views[%d]", path, j))
		}
		if v.Key != "" {
			c.rmap[key] = out.ID
		}
		c.log("created view %q (%s)", v.Title, out.ID)
	}
	return nil
}

// prefixed names the place in module.json of a validation error a service returned.
func prefixed(err error, path string) error {
	fe, ok := fault.As(err)
	if !ok || fe.Code != fault.CodeValidation {
		return err
	}
	field, _ := fe.Details["field"].(string)
	at := path
	if field != "" {
		at += "." + field
	}
	return fault.Validation(at, "module.json: %s: %s", at, fe.Message)
}
