// Package services is the registry of the portal's background services
// (SPEC.md, Service record): their switches, cron schedules and config, the
// manual runs and the scheduler that fires each schedule on exactly one
// instance.
package services

import (
	"encoding/json"
	"time"

	"coreportal/internal/fault"
)

// Service keys of SPEC.md.
const (
	KeyADSync        = "ad-sync"
	KeySearchCrawler = "search-crawler"
	KeyRecycleBin    = "recycle-bin"
	KeyCoreBackup    = "core-backup"
	KeyNotifications = "notifications"
	KeyJobsCleanup   = "jobs-cleanup"
	KeyOIDC          = "oidc"
)

// ServiceRecord is a service as GET /services shows it.
type ServiceRecord struct {
	Key            string         `json:"key"`
	Title          string         `json:"title"`
	IsEnabled      bool           `json:"isEnabled"`
	CronEnabled    bool           `json:"cronEnabled"`
	CronExpression string         `json:"cronExpression"`
	Available      bool           `json:"available" doc:"false while the capability behind the service is missing or not configured"`
	Reason         string         `json:"unavailableReason,omitempty" doc:"why available is false"`
	ManualRun      bool           `json:"manualRun" doc:"whether POST /services/{key}/run is accepted"`
	HasSchedule    bool           `json:"hasSchedule" doc:"whether the service runs on a cron schedule"`
	JobType        string         `json:"jobType,omitempty" doc:"type of the jobs its runs create"`
	NextRunAt      *time.Time     `json:"nextRunAt" doc:"next scheduled run when enabled and scheduled"`
	Config         map[string]any `json:"config" doc:"service settings; secrets are never returned (hasPassword instead)"`
}

// def is the built-in description of one service.
type def struct {
	key, title, jobType string
	enabled, cron       bool
	expr                string
	manual, schedule    bool
	// unavailable is why the service cannot run until a runner is registered.
	unavailable string
	// refuse is the error code used when an unavailable service is enabled or run.
	refuse fault.Code
}

var defs = []def{
	{key: KeyADSync, title: "Directory synchronisation", jobType: "adSync.run", expr: "0 2 * * *", manual: true, schedule: true,
		unavailable: "the directory (LDAP) connection is not configured", refuse: fault.CodeConflict},
	{key: KeySearchCrawler, title: "Search crawler", jobType: "searchCrawler.run", expr: "0 3 * * *", manual: true, schedule: true,
		unavailable: "the search index is not part of this build", refuse: fault.CodeConflict},
	{key: KeyRecycleBin, title: "Recycle bin purge", jobType: "recycleBin.purge", enabled: true, cron: true, expr: "@daily", manual: true, schedule: true,
		unavailable: "the recycle bin is not part of this build", refuse: fault.CodeConflict},
	// new installations back up daily at 01:00 (installations older than
	// this default keep theirs off: migration 0903 stores their row)
	{key: KeyCoreBackup, title: "Backup", jobType: "backup.run", enabled: true, cron: true, expr: "0 1 * * *", schedule: true,
		unavailable: "the backup runner is not part of this build", refuse: fault.CodeConflict},
	{key: KeyNotifications, title: "Notifications (mail)", enabled: true},
	{key: KeyJobsCleanup, title: "Job journal cleanup", jobType: "jobs.cleanup", enabled: true, cron: true, expr: "@daily", manual: true, schedule: true,
		unavailable: "the job queue is not wired", refuse: fault.CodeConflict},
	// OpenID Connect sign-in: settings in its config (GET/PUT /admin/settings/oidc)
	{key: KeyOIDC, title: "OpenID Connect sign-in", enabled: true},
}

func defOf(key string) (def, bool) {
	for _, d := range defs {
		if d.key == key {
			return d, true
		}
	}
	return def{}, false
}

// row is the stored state of a service.
type row struct {
	enabled, cronEnabled bool
	expr                 string
	config               json.RawMessage
	lastTick             *int64
}

// Patch is the input of Update; nil fields stay as they are.
type Patch struct {
	IsEnabled      *bool
	CronEnabled    *bool
	CronExpression *string
}

// secretKeys are config fields never returned; hasPassword says whether one is set.
var secretKeys = []string{"password", "bindPassword", "clientSecret"}
