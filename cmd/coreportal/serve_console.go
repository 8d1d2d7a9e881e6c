package main

import (
	"io/fs"

	"coreportal/ui"
)

// consoleBuild is the web console's committed build (ui/dist), embedded in
// the binary.
func consoleBuild() fs.FS {
	dist, err := fs.Sub(ui.Dist, "dist")
	if err != nil { // only if the embed pattern changes: a build error
		panic("console build: " + err.Error())
	}
	return dist
}
