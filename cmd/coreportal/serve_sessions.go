package main

// configureSessions applies the session-hardening settings (#9) that live
// outside the auth service: the caps and re-check period of live streams.
func (a *app) configureSessions() {
	a.live.MaxStreams = a.cfg.LiveMaxStreams
	a.live.MaxStreamsPerUser = a.cfg.LiveMaxStreamsPerUser
	a.live.RecheckInterval = a.cfg.LiveRecheck
}
