package release

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/fault"
	"coreportal/internal/licence"
	"coreportal/internal/settings"
	"coreportal/internal/store"
)

const (
	vendorTimeout = 10 * time.Second
	// RunnerOnlineWindow: the runner is online when it polled within it.
	RunnerOnlineWindow = 30 * time.Second
	// staleAfter: an active job whose runner has been silent this long is failed.
	staleAfter = 5 * time.Minute

	keyVersion    = "release_version"
	keyLatest     = "release_latest_version"
	keyCheckedAt  = "release_last_check_at"
	keyUpdatePage = "release_updates_page"
	keyHeartbeat  = "update_runner_heartbeat"
)

// Config is what the service reads from the process configuration.
type Config struct {
	VendorURL    string // CORE_VENDOR_URL
	ReleaseFile  string // CORE_RELEASE_FILE
	BuildVersion string // assembly version of this binary
	Channel      string // installed channel (CORE_RELEASE_CHANNEL)
	Platform     string // installed platform (GOOS-GOARCH)
	OfficeURL    string // CORE_OFFICE_URL
}

// Service is the release, update check and update job service.
type Service struct {
	db       *store.DB
	jobs     *jobStore
	settings *settings.Store
	lic      *licence.Service
	cfg      Config
	http     *http.Client
	now      func() time.Time
	// discovery reads the Office editor's WOPI discovery (nil: not wired)
	discovery OfficeDiscovery
}

// New builds the service.
func New(db *store.DB, st *settings.Store, lic *licence.Service, cfg Config) *Service {
	return &Service{db: db, jobs: &jobStore{db: db}, settings: st, lic: lic, cfg: cfg,
		http: &http.Client{Timeout: vendorTimeout}, now: time.Now}
}

// readReleaseFile returns the first non-empty line of the RELEASE file, ""
// when there is no such file or it is empty.
func (s *Service) readReleaseFile() string {
	if s.cfg.ReleaseFile == "" {
		return ""
	}
	b, err := os.ReadFile(s.cfg.ReleaseFile)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// Installed returns the installed release version and its source.
func (s *Service) Installed(ctx context.Context) (version, source string, err error) {
	if v := s.readReleaseFile(); v != "" {
		return v, "file", nil
	}
	v, ok, err := s.settings.Get(ctx, keyVersion)
	if err != nil {
		return "", "", err
	}
	if !ok || v == "" {
		v = s.cfg.BuildVersion
	}
	return v, "database", nil
}

// Settings returns the release settings.
func (s *Service) ReleaseSettings(ctx context.Context) (ReleaseSettings, error) {
	v, src, err := s.Installed(ctx)
	if err != nil {
		return ReleaseSettings{}, err
	}
	out := ReleaseSettings{InstalledReleaseVersion: v, InstalledReleaseSource: src, ReleaseFilePath: s.cfg.ReleaseFile,
		CanEditInstalledVersion: src != "file", UpdateCheckURL: s.latestURL()}
	if out.LastKnownLatestVersion, _, err = s.settings.Get(ctx, keyLatest); err != nil {
		return ReleaseSettings{}, err
	}
	at, ok, err := s.settings.Get(ctx, keyCheckedAt)
	if err != nil {
		return ReleaseSettings{}, err
	}
	if t, perr := time.Parse(time.RFC3339Nano, at); ok && perr == nil {
		t = t.UTC()
		out.LastUpdateCheckAt = &t
	}
	if out.UpdatesPageURL, _, err = s.settings.Get(ctx, keyUpdatePage); err != nil {
		return ReleaseSettings{}, err
	}
	if out.UpdatesPageURL == "" {
		out.UpdatesPageURL = s.vendorPath("/releases")
	}
	return out, nil
}

// SetInstalled changes the installed release version kept in the database;
// refused (409) while a RELEASE file sets it.
func (s *Service) SetInstalled(ctx context.Context, version string) (ReleaseSettings, error) {
	version = strings.TrimSpace(version)
	if !ValidVersion(version) {
		return ReleaseSettings{}, fault.Validation("installedReleaseVersion", "installedReleaseVersion must be a version such as 1.4.2 (at most 64 characters)")
	}
	if s.readReleaseFile() != "" {
		return ReleaseSettings{}, fault.Conflict("the installed release version is set by the RELEASE file %s and cannot be changed through the API", s.cfg.ReleaseFile)
	}
	if err := s.settings.Set(ctx, keyVersion, version); err != nil {
		return ReleaseSettings{}, err
	}
	return s.ReleaseSettings(ctx)
}

// Product returns the product and release versions with the licence status.
func (s *Service) Product(ctx context.Context) (Product, error) {
	v, src, err := s.Installed(ctx)
	if err != nil {
		return Product{}, err
	}
	st, err := s.lic.Refresh(ctx)
	if err != nil {
		return Product{}, err
	}
	return Product{Product: "Core Portal", Version: s.cfg.BuildVersion, ReleaseVersion: v, ReleaseSource: src, License: st}, nil
}

// heartbeat returns the runner's last poll (zero when never).
func (s *Service) heartbeat(ctx context.Context) (time.Time, error) {
	v, ok, err := s.settings.Get(ctx, keyHeartbeat)
	if err != nil || !ok {
		return time.Time{}, err
	}
	t, _ := time.Parse(time.RFC3339Nano, v)
	return t, nil
}

func (s *Service) online(hb time.Time) bool {
	return !hb.IsZero() && s.now().Sub(hb) < RunnerOnlineWindow
}

// Runner returns the update runner status.
func (s *Service) Runner(ctx context.Context) (UpdateRunnerStatus, error) {
	hb, err := s.heartbeat(ctx)
	if err != nil {
		return UpdateRunnerStatus{}, err
	}
	latest, err := s.jobs.latest(ctx)
	if err != nil {
		return UpdateRunnerStatus{}, err
	}
	out := UpdateRunnerStatus{RunnerOnline: s.online(hb), LicenseOK: s.lic.Current().Valid, Channel: s.cfg.Channel,
		Platform: s.cfg.Platform, EntitleURL: s.EntitleURL(), LatestJob: latest}
	if !hb.IsZero() {
		t := hb.UTC()
		out.LastHeartbeat = &t
	}
	return out, nil
}

// Check asks the vendor for the latest release and says whether an online
// update can start. It never fails because of the vendor: an unreachable or
// unconfigured vendor is reported in the result.
func (s *Service) Check(ctx context.Context) (UpdateCheckResult, error) {
	installed, _, err := s.Installed(ctx)
	if err != nil {
		return UpdateCheckResult{}, err
	}
	now := s.now().UTC()
	res := UpdateCheckResult{InstalledReleaseVersion: installed, WhatsNew: []string{}, Fixes: []string{}, LicenseOK: s.lic.Current().Valid,
		Channel: s.cfg.Channel, Platform: s.cfg.Platform, CheckedAt: now}
	block := func(reason, msg string) {
		if res.UpgradeBlockedReason == "" {
			res.UpgradeBlockedReason, res.Message = reason, msg
		}
	}
	if s.cfg.VendorURL == "" {
		block(BlockVendorNotConfigured, "no vendor update site is configured (CORE_VENDOR_URL)")
	} else if latest, err := s.fetchLatest(ctx); err != nil {
		block(BlockVendorUnreachable, "the vendor update site did not answer usefully: "+err.Error())
	} else {
		res.LatestVersion, res.UpdatesURL = latest.Version, latest.Link
		if latest.Changelog.WhatsNew != nil {
			res.WhatsNew = latest.Changelog.WhatsNew
		}
		if latest.Changelog.Fixes != nil {
			res.Fixes = latest.Changelog.Fixes
		}
		res.UpdateAvailable = Newer(latest.Version, installed)
		res.UpToDate = !res.UpdateAvailable
		if err := s.recordCheck(ctx, latest, now); err != nil {
			return UpdateCheckResult{}, err
		}
		if !res.UpdateAvailable {
			block(BlockNoNewerVersion, "the installed release "+installed+" is up to date")
		}
	}
	if res.UpdatesURL == "" {
		res.UpdatesURL = s.vendorPath("/releases")
	}
	if !res.LicenseOK {
		block(BlockLicenseInvalid, "the licence is not valid: "+s.lic.Current().Message)
	}
	hb, err := s.heartbeat(ctx)
	if err != nil {
		return UpdateCheckResult{}, err
	}
	if !s.online(hb) {
		block(BlockRunnerOffline, "the update runner (coreportal update-runner) has not polled within 30 seconds")
	}
	active, err := s.jobs.active(ctx)
	if err != nil {
		return UpdateCheckResult{}, err
	}
	if active != nil && (hb.IsZero() || s.now().Sub(hb) > staleAfter) {
		if err := s.jobs.failActive(ctx, active.ID, "the update runner stopped answering before the job ended", now); err != nil {
			return UpdateCheckResult{}, err
		}
		active = nil
	}
	if active != nil {
		block(BlockInProgress, "update job "+active.ID+" is "+active.Status)
	}
	res.CanUpgradeOnline = res.UpgradeBlockedReason == ""
	if res.CanUpgradeOnline {
		res.Message = "release " + res.LatestVersion + " can be installed online"
	}
	return res, nil
}

func (s *Service) recordCheck(ctx context.Context, latest *Latest, now time.Time) error {
	if err := s.settings.Set(ctx, keyLatest, latest.Version); err != nil {
		return err
	}
	if err := s.settings.Set(ctx, keyUpdatePage, latest.Link); err != nil {
		return err
	}
	return s.settings.Set(ctx, keyCheckedAt, now.Format(time.RFC3339Nano))
}

// Start queues an online update to the vendor's latest release, or refuses
// with 409 UPDATE_BLOCKED and details.reason.
func (s *Service) Start(ctx context.Context, actorID string) (*UpdateJob, error) {
	res, err := s.Check(ctx)
	if err != nil {
		return nil, err
	}
	if !res.CanUpgradeOnline {
		return nil, blocked(res.UpgradeBlockedReason, res.Message)
	}
	j := &UpdateJob{ID: uuid.NewString(), Status: StatusQueued, Phase: PhaseQueued, FromVersion: res.InstalledReleaseVersion,
		ToVersion: res.LatestVersion, Channel: s.cfg.Channel, Platform: s.cfg.Platform,
		Message: "waiting for the update runner", CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	if err := s.jobs.insert(ctx, j, actorID); err != nil {
		if errors.Is(err, store.ErrUnique) {
			return nil, blocked(BlockInProgress, "another update job is queued or running")
		}
		return nil, err
	}
	return j, nil
}

func blocked(reason, msg string) error {
	return fault.New(fault.CodeUpdateBlock, "online update refused: %s", msg).With("reason", reason)
}

// Job returns one update job.
func (s *Service) JobByID(ctx context.Context, id string) (*UpdateJob, error) {
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "id must be a UUID (8-4-4-4-12 hex digits)")
	}
	j, err := s.jobs.get(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("update job")
	}
	if err != nil {
		return nil, fmt.Errorf("read update job: %w", err)
	}
	return j, nil
}
