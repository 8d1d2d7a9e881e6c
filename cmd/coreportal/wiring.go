package main

import (
	"context"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/services"
)

// connect wires capabilities to each other once each is built, so that no
// feature package imports another one's internals.
func (a *app) connect() {
	// The recycle-bin service purges entries older than its retention
	// (service config retentionDays, default 30).
	a.services.RegisterJob(services.KeyRecycleBin, "recycleBin.purge", func(ctx context.Context) (any, error) {
		days := a.services.ConfigInt(ctx, services.KeyRecycleBin, "retentionDays", 30)
		n, failed, err := a.access.recycleBin.PurgeOlderThan(ctx, time.Duration(days)*24*time.Hour)
		return map[string]any{"purged": n, "failed": failed, "retentionDays": days}, err
	})
	// A receiver scoped to one list needs edit on that list (SPEC Events 2).
	a.events.CanEditList = func(ctx context.Context, listID string) (bool, error) {
		err := a.acl.Require(ctx, auth.FromContext(ctx), acl.Ref{Type: acl.List, ID: listID}, acl.Edit)
		return err == nil, err
	}
	a.connectIntegrations()
}
