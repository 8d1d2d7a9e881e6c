package main

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/logs"
)

// adminParts holds the services of the administration capability.
type adminParts struct {
	audit *audit.Log
	logs  *logs.Log
}

// buildAdmin wires the audit log (installed behind audit.Record for every
// capability).
func (a *app) buildAdmin() {
	a.admin.audit = audit.New(a.db, actorOf)
	audit.Use(a.admin.audit)
	a.admin.logs = logs.New(a.db, logTee, a.settings)
	a.admin.logs.OnChange = func(ctx context.Context, action string, details map[string]any) {
		audit.Record(ctx, audit.Entry{Action: "applog." + action, ResourceType: "applog", Details: details})
	}
	if logTee != nil {
		a.loops = append(a.loops, a.admin.logs.Maintain, func(ctx context.Context) { logTee.Run(ctx, a.admin.logs.Write) })
		a.workers = append(a.workers, a.admin.logs.PurgeLoop)
	}
}

// actorOf is the caller of a request or job as the audit log names it.
func actorOf(ctx context.Context) audit.Actor {
	act := audit.Actor{Address: auth.ClientFrom(ctx).Address}
	if p := auth.FromContext(ctx); p != nil {
		act.ID, act.Login = p.UserID, p.Login
	}
	return act
}

// adminHandlers are the HTTP handlers of the administration capability.
func (a *app) adminHandlers() []interface{ Register(huma.API) } {
	return []interface{ Register(huma.API) }{
		audit.NewHandler(a.admin.audit),
		logs.NewHandler(a.admin.logs),
	}
}
