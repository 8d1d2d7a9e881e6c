package main

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/acl"
	"coreportal/internal/fault"
	"coreportal/internal/groups"
	"coreportal/internal/menu"
	"coreportal/internal/nodes"
	"coreportal/internal/principals"
	"coreportal/internal/recyclebin"
	"coreportal/internal/routes"
	"coreportal/internal/users"
)

// access holds the services of the access capability.
type access struct {
	groups     *groups.Service
	recycleBin *recyclebin.Service
	routes     *routes.Service
	menu       *menu.Service
	perms      *acl.Permissions
}

// buildAccess wires the access capability: permissions engine, nodes, groups,
// menus, routes and the recycle bin.
func (a *app) buildAccess() {
	a.acl = acl.New(a.db, a.bus)
	a.nodes = nodes.New(a.db, a.acl)
	a.access.groups = groups.New(a.db, a.acl, a.users)
	a.access.recycleBin = recyclebin.New(a.db, a.acl)
	a.nodes.OnDelete(a.access.recycleBin.PurgeNode)
	a.access.routes = routes.New(a.nodes, a.acl)
	a.access.menu = menu.New(a.db, a.acl, a.nodes, a.access.routes)
	a.access.perms = acl.NewPermissions(a.acl, func(ctx context.Context, principalType, id string) (bool, error) {
		if principalType == acl.PrincipalGroup {
			return a.access.groups.Exists(ctx, id)
		}
		u, err := a.users.Get(ctx, id)
		if fault.Is(err, fault.CodeNotFound) || fault.Is(err, fault.CodeValidation) {
			return false, nil
		}
		return err == nil && !u.IsSystem, err
	})
	a.loops = append(a.loops, a.acl.Listen)
}

// accessHandlers are the HTTP handlers of the access capability.
func (a *app) accessHandlers() []interface{ Register(huma.API) } {
	return []interface{ Register(huma.API) }{
		nodes.NewHandler(a.nodes),
		acl.NewHandler(a.access.perms),
		groups.NewHandler(a.access.groups),
		users.NewPickerHandler(a.users),
		principals.NewHandler(a.db),
		recyclebin.NewHandler(a.access.recycleBin),
		routes.NewHandler(a.access.routes),
		menu.NewHandler(a.access.menu),
	}
}
