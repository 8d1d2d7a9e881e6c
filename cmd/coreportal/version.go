package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Set at build time: go build -ldflags "-X main.version=1.2.3
// -X main.commit=<git sha> -X main.buildDate=<RFC 3339>". Unset, the
// version falls back to the module version and commit and date to the VCS
// stamp Go records in the binary.
var (
	version   = ""
	commit    = ""
	buildDate = ""
)

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

// buildStamp returns the commit and build date: the ldflags values, else
// the vcs.revision and vcs.time Go records (with "-dirty" when the tree had
// changes), else "unknown".
func buildStamp() (rev, date string) {
	rev, date = commit, buildDate
	if bi, ok := debug.ReadBuildInfo(); ok {
		var vcsRev, vcsTime, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsRev = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if rev == "" && vcsRev != "" {
			rev = vcsRev + dirty
		}
		if date == "" {
			date = vcsTime
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	if date == "" {
		date = "unknown"
	}
	return rev, date
}

// printVersion is `coreportal version`: the version alone on the first
// line (scripts read it back), then commit, build date and Go version.
func printVersion(w io.Writer) {
	rev, date := buildStamp()
	fmt.Fprintf(w, "%s\ncommit:     %s\nbuilt:      %s\ngo:         %s %s/%s\n", buildVersion(), rev, date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
