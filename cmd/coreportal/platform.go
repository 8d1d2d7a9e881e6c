package main

import (
	"context"
	"errors"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/events"
	"coreportal/internal/jobs"
	"coreportal/internal/live"
	"coreportal/internal/mail"
	"coreportal/internal/services"
)

// platform holds the services of the platform capability.
type platform struct {
	jobs     *jobs.Queue
	services *services.Service
	mail     *mail.Service
	events   *events.Service
	live     *live.Hub
}

// registerPlatform adds the platform routes (/jobs, /services, SMTP settings,
// /mail/send, /event-receivers). The live routes belong to the lists capability.
func (a *app) registerPlatform(api huma.API) {
	for _, r := range []interface{ Register(huma.API) }{
		jobs.NewHandler(a.jobs),
		services.NewHandler(a.services),
		mail.NewHandler(a.mail),
		events.NewHandler(a.events),
	} {
		r.Register(api)
	}
}

// buildPlatform wires the job queue, the service registry and scheduler,
// mail, event receivers with the outbox dispatcher, and the live hub.
func (a *app) buildPlatform() {
	a.jobs = jobs.New(a.db)
	a.jobs.Lease, a.jobs.Heartbeat = a.cfg.JobLease, a.cfg.JobHeartbeat
	a.jobs.UsePrincipals(a.users.SystemPrincipal, func(ctx context.Context, id string) (*auth.Principal, error) {
		acc, err := a.users.AccountByID(ctx, id)
		if err != nil {
			return nil, err
		}
		if !acc.IsActive {
			return nil, jobs.Permanent(errInactive)
		}
		return &auth.Principal{UserID: acc.ID, Login: acc.Login, DisplayName: acc.DisplayName, IsAdmin: acc.IsAdmin, IsSystem: acc.IsSystem}, nil
	})
	a.services = services.New(a.db, a.jobs)
	a.mail = mail.New(a.services, a.jobs, a.cfg)
	a.events = events.New(a.db, a.jobs, a.mail, a.users)
	a.live = live.NewHub(a.bus)
	a.live.Linger = live.ReplayWindow // reconnects with Last-Event-ID find their events here
	a.workers = append(a.workers,
		a.jobs.Run,
		a.sweepLeftovers,
		a.events.Dispatch,
		func(ctx context.Context) { a.services.Schedule(ctx, 10*time.Second) },
	)
}

var errInactive = errors.New("the acting user is deactivated")
