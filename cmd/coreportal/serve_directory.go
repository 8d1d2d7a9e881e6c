package main

import (
	"context"
	"errors"
	"io"
	"os"

	"coreportal/internal/blob"
	"coreportal/internal/directory"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/services"
)

// buildDirectory wires the directory capability: settings in the config of
// service ad-sync, the ad-sync job and its enable check, domain sign-in,
// avatars and profile card fields; then moves legacy LDAP_* values once.
func (a *app) buildDirectory(ctx context.Context) error {
	d := directory.New(a.db, a.settings, a.services, a.users, a.access.groups, a.blobs)
	hosts, err := directory.ParseHostPatterns(a.cfg.DirectoryAllowedHosts)
	if err != nil {
		return err
	}
	d.SetAllowedHosts(hosts)
	a.directory = d
	a.services.RegisterRunner(services.KeyADSync, "adSync.run", d.Configured)
	a.services.RegisterEnableCheck(services.KeyADSync, d.Check)
	a.jobs.Handle("adSync.run", func(ctx context.Context, j *jobs.Job) (any, error) {
		var p struct {
			Options directory.SyncOptions `json:"options"`
		}
		if err := j.Decode(&p); err != nil {
			return nil, jobs.Permanent(err)
		}
		res, err := d.Run(ctx, p.Options)
		if err != nil {
			// the next run (schedule or manual) tries again; retrying at once
			// against a directory that is down only repeats the failure
			return nil, jobs.Permanent(err)
		}
		return res, nil
	})
	a.auth.SetDomainLogin(d.Login)
	a.users.SetCardFields(d.CardFields)
	a.users.SetAttributeSchema(d.AttributeSchema)
	a.users.SetAvatarSource(func(ctx context.Context, userID string) (io.ReadCloser, error) {
		rc, err := a.blobs.Get(ctx, "avatars/"+userID)
		if errors.Is(err, blob.ErrNotFound) {
			return nil, fault.NotFound("avatar")
		}
		return rc, err
	})
	_, err = d.ImportLegacy(ctx, os.LookupEnv)
	return err
}
