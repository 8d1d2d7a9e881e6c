package main

import (
	"context"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/events"
	"coreportal/internal/servicetokens"
	"coreportal/internal/webhooks"
)

// webhookScopes is the container whose view stands in for a resource that no
// longer exists (a deleted item, file, page or survey).
var webhookScopes = map[string][2]acl.Type{
	"list_item": {acl.ListItem, acl.List},
	"file":      {acl.File, acl.Library},
	"page":      {acl.Page, acl.Node},
	"survey":    {acl.Survey, acl.Node},
}

// connectIntegrations enables the webhooks.post receivers, the CORS origins'
// cookie writes and the service tokens (issue 30).
func (a *app) connectIntegrations() {
	ic := a.cfg.Integrations
	a.auth.SetCORSOrigins(ic.CORSOrigins)
	a.serviceTokens = servicetokens.New(a.db, a.users)
	a.users.SetServiceAccounts(a.serviceTokens.IsAccount)
	a.auth.AddTokenResolver(a.serviceTokens.Resolve)
	a.auth.AddCredentialCheck(servicetokens.Kind, a.serviceTokens.Live)
	a.events.UseWebhooks(&events.Webhooks{
		Sender:  webhooks.NewSender(webhooks.ParseHosts(ic.WebhookAllowedHosts), ic.WebhookTimeout),
		Log:     webhooks.NewLog(a.db),
		Backoff: ic.WebhookBackoff,
		CanView: a.webhookCanView,
	})
}

// webhookCanView says whether p (the receiver's creator) may view the
// event's resource; only then is its payload sent.
func (a *app) webhookCanView(ctx context.Context, p *auth.Principal, resourceType, resourceID, scopeID string) (bool, error) {
	if p == nil {
		return false, nil
	}
	types, ok := webhookScopes[resourceType]
	if !ok {
		// group membership and other directory events: administrators only
		return p.IsAdmin, nil
	}
	ref := acl.Ref{Type: types[0], ID: resourceID}
	exists, err := a.acl.Exists(ctx, ref)
	if err != nil {
		return false, err
	}
	if !exists {
		if scopeID == "" {
			return false, nil
		}
		ref = acl.Ref{Type: types[1], ID: scopeID}
	}
	lvl, err := a.acl.Level(ctx, p, ref)
	return lvl >= acl.View, err
}
