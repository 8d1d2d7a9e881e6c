package main

import (
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/apppass"
	"coreportal/internal/dav"
)

// mountDAV adds WebDAV at /dav/ (over the libraries service and the file
// locks wired by buildLibraries) and the app passwords of /auth/app-passwords
// (also bearer tokens of the REST API).
func (a *app) mountDAV(mux *http.ServeMux, api huma.API) {
	apps := apppass.New(a.db, a.auth)
	apppass.NewHandler(apps).Register(api)
	svc := &dav.Services{Libraries: a.libraries, Nodes: a.nodes, Props: dav.NewProps(a.db)}
	allowHTTP := strings.HasPrefix(strings.ToLower(a.cfg.PublicURL), "http://")
	dav.New(svc, a.auth, apps, a.libraries.Locks(), allowHTTP).Mount(mux)
}
