// Package release knows the installed release, asks the vendor for newer
// ones, and runs online updates: update jobs wait in the database until the
// update runner (coreportal update-runner) takes them through the internal
// upgrade queue and moves them from phase to phase.
package release

import (
	"time"

	"coreportal/internal/licence"
)

// Settings are the release settings of SPEC.md.
type ReleaseSettings struct {
	InstalledReleaseVersion string     `json:"installedReleaseVersion"`
	InstalledReleaseSource  string     `json:"installedReleaseSource" enum:"file,database"`
	ReleaseFilePath         string     `json:"releaseFilePath"`
	CanEditInstalledVersion bool       `json:"canEditInstalledVersion" doc:"false when the RELEASE file sets the version"`
	LastKnownLatestVersion  string     `json:"lastKnownLatestVersion" doc:"newest version the last successful check reported; empty before one"`
	LastUpdateCheckAt       *time.Time `json:"lastUpdateCheckAt" doc:"time of the last check, null before one"`
	UpdateCheckURL          string     `json:"updateCheckUrl" doc:"the vendor's latest-release query; empty when CORE_VENDOR_URL is not set"`
	UpdatesPageURL          string     `json:"updatesPageUrl" doc:"the vendor's page about the latest release; empty when unknown"`
}

// Reasons an online update is not offered (upgradeBlockedReason, and
// details.reason of 409 UPDATE_BLOCKED).
const (
	BlockVendorNotConfigured = "vendor_not_configured"
	BlockVendorUnreachable   = "vendor_unreachable"
	BlockNoNewerVersion      = "no_newer_version"
	BlockLicenseInvalid      = "license_invalid"
	BlockRunnerOffline       = "runner_offline"
	BlockInProgress          = "update_in_progress"
)

// CheckResult is the update check result of SPEC.md.
type UpdateCheckResult struct {
	InstalledReleaseVersion string    `json:"installedReleaseVersion"`
	LatestVersion           string    `json:"latestVersion" doc:"empty when the vendor was not asked or did not answer"`
	UpdateAvailable         bool      `json:"updateAvailable"`
	UpToDate                bool      `json:"upToDate" doc:"true only when the vendor answered and its version is not newer"`
	WhatsNew                []string  `json:"whatsNew"`
	Fixes                   []string  `json:"fixes"`
	UpdatesURL              string    `json:"updatesUrl"`
	LicenseOK               bool      `json:"licenseOk"`
	CanUpgradeOnline        bool      `json:"canUpgradeOnline"`
	UpgradeBlockedReason    string    `json:"upgradeBlockedReason" enum:"vendor_not_configured,vendor_unreachable,no_newer_version,license_invalid,runner_offline,update_in_progress," doc:"empty when canUpgradeOnline"`
	Channel                 string    `json:"channel"`
	Platform                string    `json:"platform"`
	Message                 string    `json:"message" doc:"human-readable outcome of the check"`
	CheckedAt               time.Time `json:"checkedAt"`
}

// RunnerStatus is the update runner status of SPEC.md.
type UpdateRunnerStatus struct {
	RunnerOnline  bool       `json:"runnerOnline" doc:"the runner polled the upgrade queue within the last 30 seconds"`
	LastHeartbeat *time.Time `json:"lastHeartbeat"`
	LicenseOK     bool       `json:"licenseOk"`
	Channel       string     `json:"channel"`
	Platform      string     `json:"platform"`
	EntitleURL    string     `json:"entitleUrl"`
	LatestJob     *UpdateJob `json:"latestJob"`
}

// Job statuses and phases (SPEC.md, States and transitions / Update job).
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"

	PhaseQueued   = "queued"
	PhaseEntitle  = "entitle"
	PhaseDownload = "download"
	PhaseApply    = "apply"
	PhaseRestart  = "restart"
	PhaseDone     = "done"
	PhaseFailed   = "failed"
)

// phaseOrder ranks the phases a running job moves through.
var phaseOrder = map[string]int{PhaseQueued: 0, PhaseEntitle: 1, PhaseDownload: 2, PhaseApply: 3, PhaseRestart: 4, PhaseDone: 5}

// Job is an update job.
type UpdateJob struct {
	ID          string     `json:"id"`
	Status      string     `json:"status" enum:"queued,running,succeeded,failed"`
	Phase       string     `json:"phase" enum:"queued,entitle,download,apply,restart,done,failed"`
	FromVersion string     `json:"fromVersion"`
	ToVersion   string     `json:"toVersion"`
	Channel     string     `json:"channel"`
	Platform    string     `json:"platform"`
	Message     string     `json:"message"`
	CreatedAt   time.Time  `json:"createdAt"`
	StartedAt   *time.Time `json:"startedAt"`
	CompletedAt *time.Time `json:"completedAt"`
}

// Work is what the runner needs to carry out a claimed job.
type UpdateWork struct {
	UpdateJob      UpdateJob `json:"job"`
	EntitleURL     string    `json:"entitleUrl"`
	LicenseKey     string    `json:"licenseKey"`
	InstallBinding string    `json:"installBinding"`
	Channel        string    `json:"channel"`
	Platform       string    `json:"platform"`
	CurrentVersion string    `json:"currentVersion"`
}

// Progress is the runner's report on a job.
type UpdateProgress struct {
	Phase   string `json:"phase" enum:"entitle,download,apply,restart,done,failed" doc:"the phase reached; done ends the job as succeeded, failed as failed"`
	Message string `json:"message,omitempty" maxLength:"2000"`
}

// Product is the product and release version with the licence status.
type Product struct {
	Product        string                `json:"product"`
	Version        string                `json:"version" doc:"assembly version of the running binary (GET /system/version)"`
	ReleaseVersion string                `json:"releaseVersion"`
	ReleaseSource  string                `json:"releaseSource" enum:"file,database"`
	License        licence.LicenseStatus `json:"license" doc:"the licence status (GET /admin/license)"`
}
