package main

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/wopi"
)

// buildOffice wires the WOPI host of the Office editor (CORE_OFFICE_URL)
// and its discovery into the administration's Office status.
func (a *app) buildOffice(ctx context.Context) error {
	secret := a.cfg.JWTSecret
	if secret == "" {
		s, err := a.settings.Init(ctx, "jwt_secret", func() string { return auth.RandomPassword() + auth.RandomPassword() })
		if err != nil {
			return err
		}
		secret = s
	}
	a.office = wopi.New(wopi.Config{OfficeURL: a.cfg.OfficeURL, PublicURL: a.cfg.PublicURL, Secret: secret, TokenTTL: a.cfg.OfficeTokenTTL}, a.libraries, a.acl,
		func(ctx context.Context, id string) (*auth.Principal, error) {
			u, err := a.users.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			if !u.IsActive || u.IsSystem {
				return nil, fault.NotFound("user")
			}
			return &auth.Principal{UserID: u.ID, Login: u.Login, DisplayName: u.DisplayName, IsAdmin: u.IsCoreAdmin, TokenVersion: u.TokenVersion}, nil
		})
	a.release.UseOfficeDiscovery(func(ctx context.Context) (bool, []string, bool, string) {
		st := a.office.Status(ctx)
		return st.Discovery, st.FileTypes, st.ProofKey, st.Error
	})
	return nil
}

// mountOffice adds the WOPI host routes and GET .../files/{ref}/edit.
func (a *app) mountOffice(mux *http.ServeMux, api huma.API) {
	a.office.Mount(mux)
	a.office.MountAPI(mux, api)
}
