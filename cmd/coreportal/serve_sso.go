package main

import (
	"context"
	"log/slog"

	"coreportal/internal/sso"
)

// buildSSO wires single sign-on: OpenID Connect (settings in service oidc)
// and, with CORE_KERBEROS_KEYTAB, Windows integrated sign-in.
func (a *app) buildSSO(secret string) error {
	s := sso.New(a.services, a.users, a.access.groups, a.auth, []byte(secret), a.cfg.PublicURL)
	if a.cfg.KerberosKeytab != "" {
		k, err := sso.LoadKerberos(a.cfg.KerberosKeytab, a.cfg.KerberosSPN, a.cfg.KerberosMaxSkew)
		if err != nil {
			return err
		}
		slog.Info("Windows integrated sign-in (Kerberos) enabled", "spn", k.SPN())
		s.SetKerberos(k)
	}
	a.sso = s
	return nil
}

func (a *app) ssoHandler() *sso.Handler {
	return sso.NewHandler(a.sso, func(ctx context.Context, id string) (any, error) { return a.users.Card(ctx, id) })
}
