package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/apppass"
	"coreportal/internal/auth"
	"coreportal/internal/dav"
	"coreportal/internal/fault"
	"coreportal/internal/servicetokens"
)

// mountDAV adds WebDAV at /dav/ (over the libraries service and the file
// locks wired by buildLibraries) and the app passwords of /auth/app-passwords
// (also bearer tokens of the REST API).
func (a *app) mountDAV(mux *http.ServeMux, api huma.API) {
	apps := apppass.New(a.db, a.auth)
	apppass.NewHandler(apps).Register(api)
	// Office access tokens minted with an app password or a service token
	// stop working once it is revoked (or expired)
	a.office.UseCredentials(func(ctx context.Context, kind, id string) error {
		switch kind {
		case auth.CredentialAppPassword:
			return apps.Live(ctx, id)
		case servicetokens.Kind:
			if a.serviceTokens != nil {
				return a.serviceTokens.Live(ctx, id)
			}
		}
		return fault.Unauthorized("unknown credential")
	})
	svc := &dav.Services{Libraries: a.libraries, Nodes: a.nodes, Props: dav.NewProps(a.db)}
	allowHTTP := strings.HasPrefix(strings.ToLower(a.cfg.PublicURL), "http://")
	dav.New(svc, a.auth, apps, a.libraries.Locks(), allowHTTP).Mount(mux)
}
