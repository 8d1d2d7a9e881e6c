package modules

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/mod/semver"
)

// versionRE is semantic versioning 2.0 with all three numbers (1.2.0,
// 2.0.0-rc.1, 1.0.0+build.5); "1.2" or "v1.2.0" are refused so that two
// packages never disagree on what a version means.
var versionRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

// keyRE is a module key: dotted lower-case words (acme.tasks, vendor.comms.chat).
var keyRE = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*){0,7}$`)

// ValidVersion reports whether v is a full semantic version.
func ValidVersion(v string) bool { return len(v) <= 64 && versionRE.MatchString(v) }

// ValidKey reports whether k is a well-formed module key.
func ValidKey(k string) bool { return len(k) <= 100 && keyRE.MatchString(k) }

// CompareVersions orders two valid versions like semver (build metadata ignored).
func CompareVersions(a, b string) int { return semver.Compare("v"+a, "v"+b) }

// Requirement is one entry of requires: a module key and an optional
// version constraint (operator and version).
type Requirement struct {
	Key     string `json:"key"`
	Op      string `json:"op,omitempty"` // >=, >, =, <=, < or "" (any version)
	Version string `json:"version,omitempty"`
}

// String gives the requirement as written in module.json.
func (r Requirement) String() string {
	if r.Op == "" {
		return r.Key
	}
	return r.Key + "@" + r.Op + r.Version
}

// ops is ordered so that two-character operators are tried first.
var ops = []string{">=", "<=", ">", "<", "="}

// ParseRequirement reads "<key>", "<key>@<op><version>" or "<key>@<version>"
// (the same as "=").
func ParseRequirement(s string) (Requirement, error) {
	key, cons, hasCons := strings.Cut(strings.TrimSpace(s), "@")
	if !ValidKey(key) {
		return Requirement{}, fmt.Errorf("%q: %q is not a module key (dotted lower-case words)", s, key)
	}
	r := Requirement{Key: key}
	if !hasCons {
		return r, nil
	}
	r.Op = "="
	for _, op := range ops {
		if rest, ok := strings.CutPrefix(cons, op); ok {
			r.Op, cons = op, rest
			break
		}
	}
	r.Version = strings.TrimSpace(cons)
	if !ValidVersion(r.Version) {
		return Requirement{}, fmt.Errorf("%q: %q is not a semantic version such as 1.2.0", s, r.Version)
	}
	return r, nil
}

// Allows reports whether version v satisfies the requirement.
func (r Requirement) Allows(v string) bool {
	if !ValidVersion(v) {
		return false
	}
	if r.Op == "" {
		return true
	}
	c := CompareVersions(v, r.Version)
	switch r.Op {
	case ">=":
		return c >= 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	case "<":
		return c < 0
	default:
		return c == 0
	}
}
