package main

import (
	"coreportal/internal/acl"
	"coreportal/internal/nodes"
)

// buildAccess wires the access capability: permissions engine, nodes, groups,
// menus, routes and the recycle bin.
func (a *app) buildAccess() {
	a.acl = acl.New(a.db, a.bus)
	a.nodes = nodes.New(a.db, a.acl)
	a.loops = append(a.loops, a.acl.Listen)
}
