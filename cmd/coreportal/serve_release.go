package main

import (
	"context"
	"net/http"
	"runtime"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/licence"
	"coreportal/internal/release"
	"coreportal/internal/vendorkey"
	"coreportal/internal/web"
)

// platformName is the installed platform reported to the vendor and checked
// against licence keys, e.g. linux-amd64.
func platformName() string { return runtime.GOOS + "-" + runtime.GOARCH }

// buildLicence loads the licence status (before the platform, whose workers
// pause while the portal is read-only).
func (a *app) buildLicence(ctx context.Context) error {
	pub, err := vendorkey.Parse(a.cfg.LicensePublicKey)
	if err != nil {
		return err
	}
	a.licence, err = licence.New(ctx, a.settings, licence.Options{DataDir: a.cfg.DataDir, PublicKey: pub,
		Channel: a.cfg.ReleaseChannel, Platform: platformName(), Bus: a.bus})
	if err != nil {
		return err
	}
	a.release = release.New(a.db, a.settings, a.licence, release.Config{VendorURL: a.cfg.VendorURL, ReleaseFile: a.cfg.ReleaseFile,
		BuildVersion: buildVersion(), Channel: a.cfg.ReleaseChannel, Platform: platformName(), OfficeURL: a.cfg.OfficeURL})
	a.loops = append(a.loops, a.licence.Listen, func(ctx context.Context) { a.licence.Watch(ctx, 10*time.Second) })
	return nil
}

// registerRelease adds the licence, release, update and Office routes and the
// runner's upgrade queue.
func (a *app) registerRelease(api huma.API) {
	licence.NewHandler(a.licence).Register(api)
	release.NewHandler(a.release).Register(api)
}

// readOnlyGate answers 423 LICENSE_READ_ONLY to signed-in callers' writes
// while the licence is not valid; anonymous callers get the 401 of the
// operation first, so that the licence state is told only to users.
func (a *app) readOnlyGate(next http.Handler) http.Handler {
	gated := web.ReadOnlyGate(a.licence.Writable, web.WriteExempt)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth.FromContext(r.Context()) == nil {
			next.ServeHTTP(w, r)
			return
		}
		gated.ServeHTTP(w, r)
	})
}

// jobsPaused tells background workers to hold writes while read-only; the
// worker logs when it pauses and resumes.
func (a *app) jobsPaused() (bool, string) {
	st := a.licence.Current()
	if st.Valid {
		return false, ""
	}
	return true, "licence " + st.Mode + ": " + st.Message
}
