package applog

import (
	"log/slog"
	"regexp"
	"strings"

	"coreportal/internal/fault"
)

// Settings of the application log (SPEC.md "Application log settings").
type Settings struct {
	MinLevel          string   `json:"minLevel" enum:"debug,info,warn,error" doc:"lowest level written to the application log (default info)"`
	IncludeCategories []string `json:"includeCategories" maxItems:"50" doc:"categories written (http: request lines, job, app, audit, applog …); empty = all except request lines below warn (high volume: name http to store them)"`
	RedactEnabled     bool     `json:"redactEnabled" doc:"mask passwords, tokens, cookies, Authorization headers, LDAP bind passwords and e-mail addresses before storage (default true)"`
	RetentionDays     int      `json:"retentionDays" minimum:"1" maximum:"3650" doc:"records older than this are purged (default 30)"`
	MaxSizeMb         int      `json:"maxSizeMb" minimum:"1" maximum:"102400" doc:"ceiling of the stored records' size in MB; the oldest are purged above it (default 256)"`
	MaxRows           int      `json:"maxRows" minimum:"100" maximum:"100000000" doc:"ceiling of the number of records; the oldest are purged above it (default 1000000)"`
}

// DefaultSettings are in force until an administrator saves others.
func DefaultSettings() Settings {
	return Settings{MinLevel: "info", IncludeCategories: []string{}, RedactEnabled: true, RetentionDays: 30, MaxSizeMb: 256, MaxRows: 1_000_000}
}

var reCategory = regexp.MustCompile(`^[a-z][a-z0-9_.-]{0,39}$`)

// Check validates and normalises s.
func (s *Settings) Check() error {
	if _, ok := ParseLevel(s.MinLevel); !ok {
		return fault.Validation("minLevel", "minLevel must be debug, info, warn or error")
	}
	s.MinLevel = strings.ToLower(s.MinLevel)
	cats := make([]string, 0, len(s.IncludeCategories))
	seen := map[string]bool{}
	for _, c := range s.IncludeCategories {
		c = strings.ToLower(strings.TrimSpace(c))
		if !reCategory.MatchString(c) {
			return fault.Validation("includeCategories", "category %q must be a lower-case word (letters, digits, _ . -)", c)
		}
		if !seen[c] {
			seen[c] = true
			cats = append(cats, c)
		}
	}
	s.IncludeCategories = cats
	switch {
	case s.RetentionDays < 1 || s.RetentionDays > 3650:
		return fault.Validation("retentionDays", "retentionDays must be 1-3650")
	case s.MaxSizeMb < 1 || s.MaxSizeMb > 102400:
		return fault.Validation("maxSizeMb", "maxSizeMb must be 1-102400")
	case s.MaxRows < 100 || s.MaxRows > 100_000_000:
		return fault.Validation("maxRows", "maxRows must be 100-100000000")
	}
	return nil
}

func (s *Settings) level() slog.Level {
	l, _ := ParseLevel(s.MinLevel)
	return l
}

// ParseLevel reads debug, info, warn (warning) or error.
func ParseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// LevelName is the stored name of a level.
func LevelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warn"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}
