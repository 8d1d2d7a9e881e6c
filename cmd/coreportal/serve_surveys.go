package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
	"coreportal/internal/surveys"
)

// buildSurveys wires the surveys capability: service (export job, recycle-bin
// kind, export cleanup with the job retention) and slug routes. The secret of
// the respondent marks is generated once and kept in the settings store.
func (a *app) buildSurveys(ctx context.Context) error {
	secret, err := a.settings.Init(ctx, "surveys_respondent_secret", func() string {
		var b [32]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	})
	if err != nil {
		return err
	}
	a.surveys = surveys.New(surveys.Deps{
		DB: a.db, ACL: a.acl, Nodes: a.nodes, Menu: a.access.menu, Bin: a.access.recycleBin, Jobs: a.jobs, Blobs: a.blobs,
		Secret: []byte(secret),
		UserName: func(ctx context.Context, id string) (string, error) {
			u, err := a.users.Get(ctx, id)
			if err != nil || u.IsSystem {
				return "", fault.NotFound("user")
			}
			return u.DisplayName, nil
		},
	})
	a.access.routes.RegisterResolver("survey", a.surveys.ResolveSlug)
	a.access.routes.RegisterSlugger("survey", a.surveys.SlugOf)
	a.access.routes.RegisterGate("survey", a.surveys.Openable)
	return nil
}

// mountSurveys registers the surveys operations and the streamed download.
func (a *app) mountSurveys(api huma.API, mux *http.ServeMux) {
	h := surveys.NewHandler(a.surveys)
	h.Register(api)
	h.Mount(mux)
}
