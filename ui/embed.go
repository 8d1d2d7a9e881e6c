// Package ui holds the web console's committed build (ui/dist), embedded so the
// binary serves the console with no Node installed. The sources are beside it
// (ui/src); `npm run build` in ui/ writes dist.
package ui

import "embed"

// Dist is the console's build: index.html and the hashed files under assets/.
//
//go:embed all:dist
var Dist embed.FS
